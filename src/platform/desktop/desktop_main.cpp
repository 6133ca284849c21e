// Desktop seam: GLFW + OpenGL 3.3 core loop that draws on demand (it sleeps in glfwWaitEvents while nothing
// happens), with --frames, --screenshot and --state for smoke tests and scripted captures, and --config /
// dropped files for real models; the lab trains on threads.
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "app/run/run_session.hpp"
#include "app/run/run_text.hpp"
#include "app/shell/app.hpp"
#include "app/shell/host.hpp"
#include "app/state/export.hpp"
#include "app/state/loaded_tokenizer.hpp"
#include "app/state/params.hpp"
#include "app/state/weights.hpp"
#include "core/lab/lab_parallel.hpp"
#include "core/models/json_config.hpp"
#include "platform/desktop/screenshot.hpp"
#include "platform/gl/window.hpp"

namespace {

struct Options {
  long long frames = -1;  // -1: run until the window closes
  std::string screenshot;
  std::string state;
  std::string config;           // a config.json to open as the model
  std::string weights;          // a checkpoint to open (.safetensors or its index)
  std::string tokenizer, text;  // a tokenizer.json for it, a text for Run it
  bool run = false;             // start Run it on it
  bool bench = false;           // with the passkey bench ticked
  int width = 1280, height = 800;
};

const char* kUsage =
    "usage: ropeviz [--frames N] [--screenshot FILE.png] [--state 'position=100&max_position=10&...'] "
    "[--size WxH] [--config FILE] [--weights FILE [--tokenizer FILE] [--text FILE] [--run [--bench]]]\n"
    "  --frames N        render N frames, then exit 0\n"
    "  --screenshot F    write the last frame to F (PNG)\n"
    "  --state S         start from this state (same keys as the web app's URL hash)\n"
    "  --size WxH        window size in pixels (default 1280x800)\n"
    "  --config FILE     open a Hugging Face config.json as the model (or drop one on the window)\n"
    "  --weights FILE    open a checkpoint: model.safetensors or model.safetensors.index.json with its shards, and\n"
    "                    the config.json beside it (or drop them on the window); only the tensors needed are read\n"
    "  --tokenizer FILE  the checkpoint's tokenizer.json, when it is not beside it (or drop it on the window)\n"
    "  --text FILE       the text Run it reads (UTF-8), instead of the held-out sample (or drop a .txt)\n"
    "  --run             start Run it on those weights with the panel's settings (a pass per frame)\n"
    "  --bench           tick Run it's passkey bench first (its grids after the loss curves)\n";

bool parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "ropeviz: %s needs a value\n%s", name, kUsage);
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (a == "--frames") {
      const char* v = next("--frames");
      char* end = nullptr;
      if (!v || (o.frames = std::strtoll(v, &end, 10), *end != '\0') || o.frames < 1) {
        std::fprintf(stderr, "ropeviz: --frames needs a positive whole number\n");
        return false;
      }
    } else if (a == "--screenshot") {
      const char* v = next("--screenshot");
      if (!v) return false;
      o.screenshot = v;
    } else if (a == "--state") {
      const char* v = next("--state");
      if (!v) return false;
      o.state = v;
    } else if (a == "--config") {
      const char* v = next("--config");
      if (!v) return false;
      o.config = v;
    } else if (a == "--weights") {
      const char* v = next("--weights");
      if (!v) return false;
      o.weights = v;
    } else if (a == "--tokenizer" || a == "--text") {
      const char* v = next(a.c_str());
      if (!v) return false;
      (a == "--text" ? o.text : o.tokenizer) = v;
    } else if (a == "--run" || a == "--bench") {
      (a == "--run" ? o.run : o.bench) = true;
    } else if (a == "--size") {
      const char* v = next("--size");
      if (!v || std::sscanf(v, "%dx%d", &o.width, &o.height) != 2 || o.width < 64 || o.height < 64 || o.width > 8192 ||
          o.height > 8192) {
        std::fprintf(stderr, "ropeviz: --size needs WxH between 64 and 8192\n");
        return false;
      }
    } else {
      std::fprintf(stderr, "ropeviz: unknown option '%s'\n%s", a.c_str(), kUsage);
      return false;
    }
  }
  return true;
}

// Reads a config.json (at most the reader's limit, so a huge file costs nothing) and opens it as the model; a
// missing or bad file is a note, and the model stays.
void open_config(rv::App& app, const std::string& path) {
  const std::string label = rv::file_name(path);
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) {
    app.ui.notes.push_back(label + ": cannot open " + path + "; kept the current model");
    return;
  }
  std::string text(rv::kMaxConfigFileBytes + 1, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), in));
  std::size_t total = text.size();
  if (total > rv::kMaxConfigFileBytes && std::fseek(in, 0, SEEK_END) == 0)
    total = std::size_t(std::max(0L, std::ftell(in)));
  std::fclose(in);
  rv::load_config(app.params, text, label, total, app.ui.notes);
}

// Files dropped on the window: a checkpoint (.safetensors or its index; the config.json and tokenizer.json beside it
// come along) is opened as the weights, a *tokenizer.json is given to them, a .txt is Run it's text, a Hugging Face
// side file (tokenizer_config.json, ...) is refused by name; without a checkpoint every other file is opened as a
// config.json (the last one stays).
void on_drop(GLFWwindow* handle, int count, const char** paths) {
  auto* window = static_cast<rv::Window*>(glfwGetWindowUserPointer(handle));
  if (!window || !window->app) return;
  rv::App& app = *window->app;
  const auto ends = [](const std::string& name, const char* tail) {
    const std::size_t n = std::strlen(tail);
    return name.size() >= n && name.compare(name.size() - n, n, tail) == 0;
  };
  const char* const* checkpoint =
      std::find_if(paths, paths + count, [](const char* p) { return rv::is_weights_file(p); });
  if (checkpoint != paths + count) rv::load_weights_path(app.params, *checkpoint, app.ui.notes, &app.ui.note_details);
  for (int i = 0; i < count; ++i) {
    const std::string path = paths[i];
    if (ends(path, "tokenizer.json"))
      rv::load_tokenizer_path(app.params, path, app.ui.notes);
    else if (ends(path, ".txt"))
      rv::load_run_text_path(app, path, app.ui.notes);
    else if (rv::is_side_file(path))
      app.ui.notes.push_back(rv::file_name(path) +
                             " is not a model's config.json (only a file "
                             "named config.json is taken with a checkpoint); drop the config.json, or tokenizer.json "
                             "for the tokens");
    else if (checkpoint == paths + count)
      open_config(app, path);
  }
  rv::wake(*window);
}

// Events for the next frame: those waiting now if a frame is due, else the next ones that wake the window
// (sleeping until then); while a lab run trains on threads, a frame at least every kPollSeconds shows its progress.
void gather_events(rv::Window& window, bool frame_due) {
  if (frame_due) {
    glfwPollEvents();
    return;
  }
  if (window.app && rv::app_polling(*window.app)) {
    glfwWaitEventsTimeout(rv::kPollSeconds);
    return;
  }
  while (window.frames_due == 0 && !glfwWindowShouldClose(window.handle)) glfwWaitEvents();
}

// What the frame asked the desktop for: files and pictures in the working directory, the command line on the
// clipboard (no file picker: files are dropped on the window or named with --config).
struct DesktopHost final : rv::Host {
  GLFWwindow* window;
  explicit DesktopHost(GLFWwindow* w) : window(w) {}
  void save_file(rv::App& app, const rv::ExportFile& file) override {
    std::FILE* out = std::fopen(file.name.c_str(), "wb");
    const bool ok = out && std::fwrite(file.content.data(), 1, file.content.size(), out) == file.content.size();
    if (out) std::fclose(out);
    app.ui.notes.push_back(ok ? "saved " + file.name + " in the working directory" : "could not write " + file.name);
    std::fprintf(stderr, "ropeviz: %s\n", app.ui.notes.back().c_str());
  }
  void save_picture(rv::App& app, const std::string& name, const std::optional<rv::Rect>& region) override {
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window, &fw, &fh);
    const std::string error = rv::save_screenshot(name, fw, fh, region);
    app.ui.notes.push_back(error.empty() ? "saved " + name + " in the working directory" : error);
  }
  // The desktop's link to a view is the command that reopens it.
  void copy_link(rv::App& app) override {
    const std::string command = "ropeviz --state '" + rv::encode_query(app.params) + "'";
    glfwSetClipboardString(window, command.c_str());
    app.ui.notes.push_back("copied: " + command);
  }
  void open_config_picker(rv::App&) override {}
  // The demo models beside the app's sources (web/models, which the build names RV_DEMO_MODELS).
  void open_demo_model(rv::App& app, const std::string& name) override {
    rv::load_weights_path(app.params, std::string(RV_DEMO_MODELS) + "/" + name + "/model.safetensors", app.ui.notes,
                          &app.ui.note_details);
  }
};

// Device pixels per logical pixel: the monitor's content scale, over what GLFW already scales.
float display_scale(GLFWwindow* window) {
  float sx = 1.0f, sy = 1.0f;
  glfwGetWindowContentScale(window, &sx, &sy);
  int w = 0, h = 0, fw = 0, fh = 0;
  glfwGetWindowSize(window, &w, &h);
  glfwGetFramebufferSize(window, &fw, &fh);
  const float already = (w > 0 && fw > 0) ? float(fw) / float(w) : 1.0f;
  const float scale = sx / already;
  return scale > 0.5f && scale < 8.0f ? scale : 1.0f;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) return 2;
  rv::App app;
  // The lab's runs (one per method and seed) train on as many threads as there are cores; frames only poll them.
  const int jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  app.lab.engine = [jobs](const rv::LabOptions& o, const std::vector<std::string>&) {
    return std::make_unique<rv::LabParallel>(o, jobs);
  };
  if (!options.config.empty()) open_config(app, options.config);
  if (!options.weights.empty()) rv::load_weights_path(app.params, options.weights, app.ui.notes, &app.ui.note_details);
  if (!options.tokenizer.empty()) rv::load_tokenizer_path(app.params, options.tokenizer, app.ui.notes);
  if (!options.text.empty()) rv::load_run_text_path(app, options.text, app.ui.notes);
  rv::run_session(app).settings.bench = options.bench;
  if (options.run && !rv::run_start(app)) app.ui.notes.push_back("--run: " + rv::run_session(app).error);
  rv::apply_query(app.params, options.state, app.ui.notes);
  for (const std::string& note : app.ui.notes) std::fprintf(stderr, "ropeviz: note: %s\n", note.c_str());
  const std::vector<std::string> said = app.ui.notes;  // notes the frames raise (a walk's end) are said at exit

  rv::Window window;
  std::string error = rv::open_window(window, "ropeviz", options.width, options.height);
  if (!error.empty()) {
    std::fprintf(stderr, "ropeviz: %s\n", error.c_str());
    return 1;
  }
  window.app = &app;
  glfwSetDropCallback(window.handle, on_drop);
  DesktopHost host(window.handle);
  std::vector<double> frame_ms;  // CPU time per frame, for the median printed with --frames
  rv::wake(window);              // the first frames lay the window out
  bool due = true;               // --frames runs draw every frame; otherwise frames are drawn on demand
  for (long long n = 0; options.frames < 0 || n < options.frames; ++n) {
    gather_events(window, due || options.frames > 0);
    if (glfwWindowShouldClose(window.handle)) break;
    app.ui.scale = display_scale(window.handle);
    error = rv::render_frame(window, app);
    if (!error.empty()) {
      std::fprintf(stderr, "ropeviz: %s\n", error.c_str());
      break;
    }
    if (rv::serve_requests(app, host)) rv::wake(window);
    if (options.frames > 0) frame_ms.push_back(app.ui.frame_ms);
    const bool last = options.frames > 0 && n + 1 == options.frames;
    if (last && !options.screenshot.empty()) {
      int fw = 0, fh = 0;
      glfwGetFramebufferSize(window.handle, &fw, &fh);
      error = rv::save_screenshot(options.screenshot, fw, fh);
      if (!error.empty()) std::fprintf(stderr, "ropeviz: %s\n", error.c_str());
    }
    glfwSwapBuffers(window.handle);
    due = rv::next_frame_due(window, app);
  }
  for (const std::string& note : app.ui.notes)
    if (std::find(said.begin(), said.end(), note) == said.end())
      std::fprintf(stderr, "ropeviz: note: %s\n", note.c_str());
  if (!frame_ms.empty()) {
    std::sort(frame_ms.begin(), frame_ms.end());
    std::printf("ropeviz: %lld frames, median frame %.3f ms CPU\n", app.ui.frames, frame_ms[frame_ms.size() / 2]);
  }
  rv::close_window(window);
  return error.empty() ? 0 : 1;
}
