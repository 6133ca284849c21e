// Browser seam: frames on demand (page.js draws a frame when an event wakes the window, then one per animation
// frame while rv_web_frame asks for another), and the C functions behind window.ropeviz (web/page.js).
// JS holds the Web pointer and passes it back, so no C++ global holds app state.
#include <GLFW/glfw3.h>
#include <emscripten/emscripten.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/lesson/exercises_ui.hpp"
#include "app/lesson/lesson_state_json.hpp"
#include "app/run/run_session.hpp"
#include "app/run/run_text.hpp"
#include "app/shell/host.hpp"
#include "app/state/export.hpp"
#include "app/lab/lab_session.hpp"
#include "app/state/loaded_tokenizer.hpp"
#include "app/state/model.hpp"
#include "app/state/params.hpp"
#include "app/state/registry.hpp"
#include "app/rope_usage/usage.hpp"
#include "app/state/weights.hpp"
#include "app/text/report.hpp"
#include "app/text/text_view.hpp"
#include "core/base/format.hpp"
#include "core/base/json_value.hpp"
#include "core/base/json_writer.hpp"
#include "core/encodings/learned.hpp"
#include "core/tokenize/tokenizer.hpp"
#include "core/weights/learned_table.hpp"
#include "imgui.h"
#include "imgui_internal.h"  // the scrollbar a finger may hold
#include "platform/gl/window.hpp"
#include "platform/web/web_lab.hpp"

namespace {

struct Web {
  rv::App app;
  rv::Window window;
  std::optional<rv::Params> published;  // the view the page's URL hash says now (compared, not re-encoded)
  std::vector<std::string> last_notes;  // the notes the text layer last said
  int typing = 0;                       // the field taking typed text after the last frame (rv_js_text_input)
  long long last_lab = 0;               // 2 x the lab run's serial + running, when the text layer last spoke
  long long last_usage = 0;             // 2 x the rope_usage walk's layers + active, likewise
  std::string reply;                    // storage for strings returned to JS
  bool gl_lost = false;                 // between webglcontextlost and webglcontextrestored: no GL calls
  bool failed = false;                  // the UI shader did not build: the page says so, nothing is drawn
  std::vector<std::uint8_t> upload;     // a file's bytes or a range of them, written by the page (rv_web_upload_buffer)
  // A checkpoint being read (rv_web_weights_begin .. a step that answers done or error): what was given, and the
  // ranges the page has supplied so far.
  std::optional<rv::WeightsFiles> weights_files;
  std::shared_ptr<rv::SuppliedBytes> weights_bytes;
  bool weights_any_file = false;  // the Hub: any file the index names can be asked for
  // The loaded checkpoint's ranges (its SuppliedSources read them): the score curve's layer 0 asks for more rows
  // after the load (other tokens, another head), which the page reads as it read the load's (rv_js_read_rows).
  std::shared_ptr<rv::SuppliedBytes> loaded_bytes;
  bool rows_asked = false;  // a read of rows is under way
  rv::WebLabs labs;         // the lab's Web Workers (platform/web/web_lab.hpp)
};

// The page's hooks are quoted Module properties, names the closure compiler keeps (page.js sets them).
// Tells the page that the view changed, and its new hash (for history.replaceState); once changes settle the page
// asks for the words (rv_web_describe): a drag through 25 positions writes them once, not 25 times.
EM_JS(void, rv_js_state_changed, (const char* hash), { Module["rvStateChanged"](UTF8ToString(hash)); });
EM_JS(void, rv_js_frame_drawn, (double frames), { Module["rvFrameDrawn"](frames); });
// A field started taking typed text (1 a number, 2 words as well; typing_field) or stopped (0): a touch screen's page
// raises the on-screen keyboard for it.
EM_JS(void, rv_js_text_input, (int field), { Module["rvTextInput"](field); });
// Asks the page for a frame (an event came; see rv::wake and page.js's rvRequestFrame).
EM_JS(void, rv_js_request_frame, (), { Module["rvRequestFrame"](); });
EM_JS(void, rv_js_fatal, (const char* message), { Module["rvFatal"](UTF8ToString(message)); });
// Hands an export to the page, which offers it as a download (its bytes: a checkpoint is binary).
EM_JS(void, rv_js_download, (const char* name, const char* mime, const char* bytes, double size),
      { Module["rvDownload"](UTF8ToString(name), UTF8ToString(mime), HEAPU8.slice(bytes, bytes + size)); });

// Saves the canvas, or the region x, y, w, h of it in canvas pixels (w > 0), as a PNG, right after a frame was drawn
// (the drawing buffer is still intact): a download, or window.ropeviz.png's answer.
EM_JS(void, rv_js_save_picture, (const char* name, double x, double y, double w, double h),
      { Module["rvSavePicture"](UTF8ToString(name), w > 0 ? {x : x, y : y, w : w, h : h} : null); });

// Opens the page's file picker for a config.json (the "load config.json" button).
EM_JS(void, rv_js_open_config, (), { Module["rvOpenConfig"](); });
// Opens the page's picker for a checkpoint's files ("load weights"), and reads a Hub repo ("fetch").
EM_JS(void, rv_js_open_weights, (), { Module["rvOpenWeights"](); });
EM_JS(void, rv_js_fetch_weights, (const char* repo), { Module["rvFetchWeights"](UTF8ToString(repo)); });
EM_JS(void, rv_js_fetch_demo, (const char* name), { Module["rvFetchDemo"](UTF8ToString(name)); });

// Copies the page's address (which carries the view in its hash) to the clipboard; a refusal
// (no permission, no user activation) becomes a note through rv_web_note.
EM_JS(void, rv_js_copy_link, (void* web), { Module["rvCopyLink"](web); });

// Called outside a frame (after one, and after rv_web_apply): tells the page when the params, the notes or the
// lab's run changed. A change wakes the window: the next frames draw it.
void publish_if_changed(Web& web) {
  const long long lab = 2 * web.app.lab.serial + (web.app.lab.running ? 1 : 0);  // a run started or finished
  const long long usage = 2 * (long long)web.app.usage.usage.q.size() + (web.app.usage.active ? 1 : 0);  // a layer came
  if (web.published && *web.published == web.app.params && web.app.ui.notes == web.last_notes && lab == web.last_lab &&
      usage == web.last_usage)
    return;
  web.last_usage = usage;
  web.published = web.app.params;
  const std::string hash = rv::encode_query(web.app.params);
  web.last_notes = web.app.ui.notes;
  web.last_lab = lab;
  rv_js_state_changed(hash.c_str());
  rv::wake(web.window);
}

// What the field being typed into takes: 0 no field, 1 a number (the app's other fields), 2 words as well (an
// exercise's answer): the page picks the on-screen keyboard by it.
int typing_field(const rv::App& app) {
  if (!ImGui::GetIO().WantTextInput) return 0;
  return app.ui.typing_words ? 2 : 1;
}

// What the frame asked the page for: a download, a picture, the file picker, the link on the clipboard.
struct WebHost final : rv::Host {
  Web& web;
  explicit WebHost(Web& w) : web(w) {}
  void save_file(rv::App&, const rv::ExportFile& file) override {
    rv_js_download(file.name.c_str(), file.mime.c_str(), file.content.data(), double(file.content.size()));
  }
  void save_picture(rv::App&, const std::string& name, const std::optional<rv::Rect>& r) override {
    rv_js_save_picture(name.c_str(), r ? r->x : 0, r ? r->y : 0, r ? r->w : 0, r ? r->h : 0);
  }
  void open_config_picker(rv::App&) override { rv_js_open_config(); }
  void open_weights_picker(rv::App&) override { rv_js_open_weights(); }
  void fetch_weights(rv::App& app) override { rv_js_fetch_weights(app.ui.weights_load.repo); }
  void open_demo_model(rv::App&, const std::string& name) override { rv_js_fetch_demo(name.c_str()); }
  void copy_link(rv::App&) override {
    publish_if_changed(web);  // the address must hold this frame's view before it is copied
    rv_js_copy_link(&web);
  }
};

// Asks the page for bytes of a loaded checkpoint's file (the score curve's layer 0 for other tokens or head); the page
// answers with rv_web_rows_supply or rv_web_rows_fail.
EM_JS(void, rv_js_read_rows, (const char* file, double offset, double length),
      { Module["rvReadRows"](UTF8ToString(file), offset, length); });

// After a frame: when the score curve waits for rows the page has not read, ask for them (one range at a time).
void ask_rows(Web& web) {
  const std::shared_ptr<rv::SuppliedBytes>& store = web.loaded_bytes;
  const bool asking = web.app.model.qk_reading;
  if (!store || web.rows_asked || !asking || !store->wanted) return;
  web.rows_asked = true;
  rv_js_read_rows(store->wanted->file.c_str(), double(store->wanted->offset), double(store->wanted->length));
}

// Run it's passes in the page's Web Workers (web/page.js): a run just started is handed over with the settings it
// was planned with and the text's token ids (each worker plans the same jobs from them); one stopped ends its workers.
EM_JS(void, rv_js_run_jobs,
      (double generation, const double* settings, int settings_count, int jobs, const double* ids, int count), {
        Module["rvRunJobs"](generation, HEAPF64.slice(settings >> 3, (settings >> 3) + settings_count), jobs,
                            HEAPF64.slice(ids >> 3, (ids >> 3) + count));
      });
EM_JS(void, rv_js_run_stop, (double generation), { Module["rvRunStop"](generation); });
void sync_run(Web& web) {
  rv::RunSession* s = web.app.run.get();
  if (!s) return;
  if (s->running && !s->dispatched) {
    s->dispatched = true;
    const std::vector<double> settings = rv::run_settings_numbers(s->planned);
    const std::vector<double> ids(s->plan.text.begin(), s->plan.text.end());  // ids < 2^53: exact
    rv_js_run_jobs(double(s->generation), settings.data(), int(settings.size()), int(s->jobs.size()), ids.data(),
                   int(ids.size()));
  } else if (!s->running && s->dispatched) {
    s->dispatched = false;
    rv_js_run_stop(double(s->generation));
  }
}

// One frame and what it asked the page for. False if nothing can be drawn (the UI shader did not build).
bool draw_frame(Web& web) {
  glfwPollEvents();
  const std::string error = rv::render_frame(web.window, web.app);
  if (!error.empty()) {
    rv_js_fatal(error.c_str());
    return false;
  }
  WebHost host{web};
  if (rv::serve_requests(web.app, host)) rv::wake(web.window);
  ask_rows(web);
  sync_run(web);
  publish_if_changed(web);
  const int typing = typing_field(web.app);
  if (typing != web.typing) rv_js_text_input(web.typing = typing);
  rv_js_frame_drawn(double(web.app.ui.frames));
  return true;
}

// The uploaded bytes, taken: a range is moved into its store whole (no copy of a 32 MB projection), a text copied out.
std::vector<std::uint8_t> take_upload(Web* web) {
  return std::exchange(web->upload, {});
}
std::string take_upload_text(Web* web) {
  const std::vector<std::uint8_t> bytes = take_upload(web);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

extern "C" {

// page.js's frame: draws one and says whether another is due (1) or the app waits for an event (0). Draws nothing
// while the GL context is lost (GL calls would only fail until it is back). The lab trains in Web Workers
// (platform/web/web_lab.hpp): no frame is due for it.
EMSCRIPTEN_KEEPALIVE int rv_web_frame(Web* web) {
  if (web->gl_lost || web->failed) return 0;
  web->failed = !draw_frame(*web);
  return !web->failed && rv::next_frame_due(web->window, web->app) ? 1 : 0;
}

// Applies "key=value&..." from the URL hash (on load, on hashchange) or from window.ropeviz.set();
// returns the notes it raised, one per line, "" if none.
EMSCRIPTEN_KEEPALIVE const char* rv_web_apply(Web* web, const char* hash) {
  std::vector<std::string> notes;
  rv::apply_query(web->app.params, hash, notes);
  web->app.ui.notes.insert(web->app.ui.notes.end(), notes.begin(), notes.end());
  if (!notes.empty()) web->published.reset();  // the address goes back to the view that holds
  publish_if_changed(*web);
  web->reply.clear();
  for (const std::string& n : notes) web->reply += n + "\n";
  return web->reply.c_str();
}

// A message from the page for the notes area (e.g. why the clipboard refused the link).
EMSCRIPTEN_KEEPALIVE void rv_web_note(Web* web, const char* text) {
  web->app.ui.notes.push_back(text);
  rv::wake(web->window);
}

// Room for `bytes` of a file the page is about to hand over (dropped, pasted or picked): it writes them into
// HEAPU8 at the returned address, then calls rv_web_load_config. Through the heap, not ccall's stack copy.
EMSCRIPTEN_KEEPALIVE std::uint8_t* rv_web_upload_buffer(Web* web, int bytes) {
  web->upload.assign(std::size_t(std::max(0, bytes)), 0);
  return web->upload.data();
}

// Opens the uploaded bytes as a config.json named `name`; total_bytes is the whole file's size (the page sends at
// most one byte past the reader's limit). A note says what happened; a bad file leaves the model as it was.
EMSCRIPTEN_KEEPALIVE void rv_web_load_config(Web* web, const char* name, double total_bytes) {
  rv::load_config(web->app.params, take_upload_text(web), name, std::size_t(std::max(0.0, total_bytes)),
                  web->app.ui.notes);
  publish_if_changed(*web);
}

// Gives the loaded weights the uploaded bytes as their tokenizer.json named `name` (total_bytes: the file's real size).
// A note says what happened; a bad file or no weights keep the state as it was. 1 when it was taken.
EMSCRIPTEN_KEEPALIVE int rv_web_load_tokenizer(Web* web, const char* name, double total_bytes) {
  const std::string text = take_upload_text(web);
  rv::Expected<std::shared_ptr<const rv::LoadedTokenizer>> t =
      rv::parse_loaded_tokenizer(text, std::uint64_t(std::max(0.0, total_bytes)), name);
  bool taken = false;
  if (!t)
    web->app.ui.notes.push_back(t.error().message);
  else
    taken = rv::attach_tokenizer(web->app.params, std::move(*t), web->app.ui.notes);
  rv::wake(web->window);
  return taken ? 1 : 0;
}

// The uploaded bytes as the text Run it reads, named `name` ("pasted text", a file's); total_bytes: its real size
// (negative: the held-out sample again).
EMSCRIPTEN_KEEPALIVE void rv_web_run_text(Web* web, const char* name, double total_bytes) {
  std::string text = take_upload_text(web);
  if (total_bytes < 0)
    rv::clear_run_text(web->app);
  else if (total_bytes > double(rv::kMaxRunTextBytes))
    web->app.ui.notes.push_back(std::string(name) + ": " + rv::format_count((long long)total_bytes) +
                                " bytes is over Run it's " + rv::format_count((long long)rv::kMaxRunTextBytes) +
                                "-byte limit; it keeps " + rv::run_text_name(web->app));
  else
    rv::set_run_text(web->app, std::move(text), name, web->app.ui.notes);
  rv::wake(web->window);
}

// window.ropeviz.tokenize and detokenize (docs/tokenizer.md): the uploaded request {"text" | "ids", optional
// "tokenizer" (a tokenizer.json's text; else the loaded weights'), "add_special_tokens"} answered as the CLI's ops
// answer ({"ids", "tokens", "encode_ms"} or {"text"}), or {"error": message}.
EMSCRIPTEN_KEEPALIVE const char* rv_web_tokenize(Web* web, int detokenize) {
  rv::JsonWriter j;
  const auto answer = [&](const std::optional<std::string>& error) -> const char* {
    if (error) {
      j = rv::JsonWriter();
      j.begin_object().key("error").value(*error).end_object();
    }
    web->reply = j.str();
    return web->reply.c_str();
  };
  const rv::Expected<rv::JsonValue> r = rv::parse_json(take_upload_text(web), 64u << 20);
  if (!r || r->kind != rv::JsonValue::Kind::Object)
    return answer(r ? "the request must be a JSON object" : r.error().message);
  std::optional<rv::tokenize::Tokenizer> own;
  const rv::tokenize::Tokenizer* t = nullptr;
  if (const rv::JsonValue* text = r->find("tokenizer"); text && text->kind == rv::JsonValue::Kind::String) {
    rv::Expected<rv::tokenize::Tokenizer> parsed = rv::tokenize::parse_tokenizer(text->string);
    if (!parsed) return answer("\"tokenizer\": " + parsed.error().message);
    t = &own.emplace(std::move(*parsed));
  } else if (const rv::LoadedTokenizer* loaded = rv::loaded_tokenizer(web->app.params)) {
    t = &loaded->tokenizer;
  } else {
    return answer("no tokenizer: give \"tokenizer\" (a tokenizer.json's text) or load a checkpoint with one");
  }
  if (detokenize) {
    const rv::JsonValue* ids = r->find("ids");
    if (!ids || ids->kind != rv::JsonValue::Kind::Array) return answer("\"ids\" must be an array of token ids");
    std::vector<long long> v;
    for (const rv::JsonValue& id : ids->array) {
      if (id.kind != rv::JsonValue::Kind::Number || !id.integer) return answer("\"ids\" must hold whole numbers");
      v.push_back((long long)id.number);
    }
    const rv::Expected<std::string> text = rv::tokenize::decode(*t, v);
    if (!text) return answer(text.error().message);
    j.begin_object().key("text").value(*text).end_object();
    return answer(std::nullopt);
  }
  const rv::JsonValue* text = r->find("text");
  if (!text || text->kind != rv::JsonValue::Kind::String) return answer("\"text\" must be a string");
  const rv::JsonValue* special = r->find("add_special_tokens");
  const auto started = std::chrono::steady_clock::now();
  const rv::tokenize::Encoding e = rv::tokenize::encode(
      *t, text->string, special && special->kind == rv::JsonValue::Kind::Boolean && special->boolean);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  j.begin_object().key("ids").begin_array();
  for (const long long id : e.ids) j.value(id);
  j.end_array().key("tokens").values(e.tokens).key("encode_ms").value(ms).end_object();
  return answer(std::nullopt);
}

// [SECTION] Checkpoints (docs/real-weights.md): page.js reads the byte ranges core asks for, from File objects or the
// Hub, and hands them over; core parses. A read that needs more bytes answers {"want": ...} and is run again from the
// start once they are supplied (every earlier range is kept), so the page never holds more than core asked for.

// Starts reading a checkpoint. `descriptor`: {"label", "file" (the safetensors file, or "" with an index), "sizes":
// {name: bytes} (-1: not known yet), "any_file" (the Hub), "config_name", "config_bytes", "config", "index"} where
// config and index say whether the uploaded text of rv_web_weights_text(0 / 1) goes with it (2: tokenizer.json,
// with "tokenizer_bytes" its real size).
EMSCRIPTEN_KEEPALIVE void rv_web_weights_text(Web* web, int which) {
  if (!web->weights_files) web->weights_files.emplace();
  if (which == 0)
    web->weights_files->config_text = take_upload_text(web);
  else if (which == 1)
    web->weights_files->index_text = take_upload_text(web);
  else  // 2: tokenizer.json, for Run it's text and the score curve's words
    web->weights_files->tokenizer_text = take_upload_text(web);
}

EMSCRIPTEN_KEEPALIVE void rv_web_weights_begin(Web* web, const char* descriptor) {
  if (!web->weights_files) web->weights_files.emplace();
  rv::WeightsFiles& f = *web->weights_files;
  web->weights_bytes = std::make_shared<rv::SuppliedBytes>();
  const rv::Expected<rv::JsonValue> d = rv::parse_json(descriptor);
  const auto text = [&](const char* key) {
    const rv::JsonValue* v = d ? d->find(key) : nullptr;
    return v && v->kind == rv::JsonValue::Kind::String ? v->string : std::string();
  };
  const auto number = [&](const rv::JsonValue* v) {
    return v && v->kind == rv::JsonValue::Kind::Number ? v->number : -1.0;
  };
  f.label = text("label");
  f.file = text("file");
  f.config_name = text("config_name").empty() ? "config.json" : text("config_name");
  f.config_bytes = std::uint64_t(std::max(0.0, number(d ? d->find("config_bytes") : nullptr)));
  f.tokenizer_bytes = std::uint64_t(std::max(0.0, number(d ? d->find("tokenizer_bytes") : nullptr)));
  // Layer 0's q and k of the score curve's current head and tokens are read with the load (qk=layer0).
  const rv::Params& now = web->app.params;
  f.qk_of[0] = now.qk_head, f.qk_of[1] = now.q_token, f.qk_of[2] = now.k_token;
  if (const rv::JsonValue* sizes = d ? d->find("sizes") : nullptr; sizes && sizes->kind == rv::JsonValue::Kind::Object)
    for (const auto& entry : sizes->object)
      if (number(&entry.second) >= 0) web->weights_bytes->sizes[entry.first] = std::uint64_t(number(&entry.second));
  const rv::JsonValue* any = d ? d->find("any_file") : nullptr;
  web->weights_any_file = any && any->kind == rv::JsonValue::Kind::Boolean && any->boolean;
  // While the page reads the first ranges: a small table's analysis, so the engine has optimised the analysis's
  // kernels (it swaps an optimised build in between calls) before the real table's one long call.
  rv::analyze_learned_table(rv::learned_table(96, 96, 1).P);
  rv::WeightsLoad& load = web->app.ui.weights_load;
  load.active = true;
  load.what = f.label;
  load.done = load.total = 0;
  load.stop = false;
  rv::wake(web->window);
}

// Hands over bytes [offset, offset + the upload's size) of `file` (file_size: the whole file's, -1 when unknown).
EMSCRIPTEN_KEEPALIVE void rv_web_weights_supply(Web* web, const char* file, double offset, double file_size) {
  // The load's ranges, or once it is done the rope_usage walk's (the loaded checkpoint's own store)
  const std::shared_ptr<rv::SuppliedBytes> store = web->weights_bytes ? web->weights_bytes
                                                   : rv::usage_walking(web->app) && web->app.params.weights
                                                       ? web->app.params.weights->supplied
                                                       : nullptr;
  if (!store) return;
  if (file_size >= 0) store->sizes[file] = std::uint64_t(file_size);
  store->supply(file, std::uint64_t(offset), take_upload(web));
  rv::WeightsLoad& load = web->app.ui.weights_load;
  if (web->weights_bytes) load.done = store->supplied;
  rv::wake(web->window);
}

// Progress within one range (the page streams a large one): bytes of it arrived so far.
EMSCRIPTEN_KEEPALIVE int rv_web_weights_progress(Web* web, double arrived) {
  rv::WeightsLoad& load = web->app.ui.weights_load;
  if (web->weights_bytes) load.done = web->weights_bytes->supplied + std::uint64_t(std::max(0.0, arrived));
  rv::wake(web->window);
  return load.stop || web->app.usage.stop ? 1 : 0;  // 1: Stop was pressed (the load's or the walk's), the page aborts
}

// The page could not read what core asked for (a File that went away, the Hub's refusal, Stop): a note, and the state
// stays as it was.
EMSCRIPTEN_KEEPALIVE void rv_web_weights_fail(Web* web, const char* message) {
  if (!web->weights_files && rv::usage_walking(web->app)) {  // the walk's read: its layers so far stay
    rv::usage_stop(web->app, web->app.usage.stop ? std::string() : std::string(message));
    publish_if_changed(*web);
    return;
  }
  const std::string label =
      web->weights_files && !web->weights_files->label.empty() ? web->weights_files->label + ": " : "";
  web->app.ui.notes.push_back(label + message + "; kept the current " +
                              (web->app.params.weights ? "weights" : "table"));
  web->weights_files.reset();
  web->weights_bytes.reset();
  web->app.ui.weights_load.active = false;
  web->app.ui.weights_load.stop = false;
  publish_if_changed(*web);
}

// The rope_usage walk's part of a step (app/rope_usage/usage.hpp), once a RoPE checkpoint is in the app: the next
// layer's ranges as {"want": ...}, or {"done": true} after the last layer (or Stop, or a note naming what is missing).
void usage_answer(Web* web, rv::JsonWriter& j) {
  rv::UsageStep s = rv::usage_step(web->app);
  while (s.kind == rv::UsageStepKind::Measured) s = rv::usage_step(web->app);  // the next layer's bytes are gone: Want
  if (s.kind == rv::UsageStepKind::Want) {
    j.key("want").begin_object().key("file").value(s.want.file);
    j.key("offset").value(double(s.want.offset)).key("length").value(double(s.want.length)).end_object();
  } else {
    j.key("done").value(true);
  }
  rv::wake(web->window);
  publish_if_changed(*web);
}

// Runs the read again with what was supplied: {"want": {"file", "offset", "length"}}, or {"done": true} once the
// weights are in the app (and a RoPE checkpoint's layers walked), or {"error": message} (a note says it too; the
// state stays as it was).
EMSCRIPTEN_KEEPALIVE const char* rv_web_weights_step(Web* web) {
  rv::JsonWriter j;
  j.begin_object();
  rv::WeightsLoad& load = web->app.ui.weights_load;
  const auto finish = [&](const std::string& error, bool noted = false) {
    if (!error.empty() && !noted)
      web->app.ui.notes.push_back((web->weights_files ? web->weights_files->label : "weights") + ": " + error);
    j.key(error.empty() ? "done" : "error");
    if (error.empty())
      j.value(true);
    else
      j.value(error);
    web->weights_files.reset();
    web->weights_bytes.reset();
    load.active = false;
    load.stop = false;
    publish_if_changed(*web);
  };
  if ((!web->weights_files || !web->weights_bytes) && rv::usage_walking(web->app)) {
    usage_answer(web, j);
  } else if (!web->weights_files || !web->weights_bytes) {
    finish("no checkpoint is being read");
  } else if (load.stop) {
    finish("stopped after " + rv::format_count((long long)web->weights_bytes->supplied) + " bytes; kept the current " +
           (web->app.params.weights ? "weights" : "table"));
  } else {
    std::shared_ptr<rv::SuppliedBytes> store = web->weights_bytes;
    store->wanted.reset();
    const bool any = web->weights_any_file;
    const rv::SourceOpener open = [store,
                                   any](const std::string& file) -> rv::Expected<std::unique_ptr<rv::ByteSource>> {
      const auto size = store->sizes.find(file);
      if (size == store->sizes.end() && !any)
        return rv::bad_request(file + " was not given: drop or pick it with the index");
      const std::uint64_t bytes = size != store->sizes.end() ? size->second : rv::kUnknownFileSize;
      return std::unique_ptr<rv::ByteSource>(new rv::SuppliedSource(store, file, bytes));
    };
    rv::Expected<std::shared_ptr<const rv::LoadedWeights>> w =
        rv::open_weights(*web->weights_files, open, rv::next_weights_serial());
    if (!w && w.error().type == rv::kNeedBytes && store->wanted) {
      j.key("want").begin_object().key("file").value(store->wanted->file);
      j.key("offset").value(double(store->wanted->offset)).key("length").value(double(store->wanted->length));
      j.end_object();
      load.total = store->supplied + store->wanted->length;
    } else if (!w) {
      finish(w.error().message + "; kept the current " + std::string(web->app.params.weights ? "weights" : "table"));
    } else {
      std::shared_ptr<rv::LoadedWeights> loaded = std::make_shared<rv::LoadedWeights>(*w.value());
      loaded->bytes_read = store->supplied;  // what the page read, every retry's ranges once
      loaded->supplied = store;              // the walk's later reads come through the same ranges
      const bool fits = rv::install_weights(web->app.params, loaded, web->app.ui.notes, &web->app.ui.note_details);
      if (fits) web->loaded_bytes = store, web->rows_asked = false;
      if (fits && (rv::sync_usage(web->app), rv::usage_walking(web->app))) {
        web->weights_files.reset();  // the load is done; the same loop now reads the layers
        web->weights_bytes.reset();
        load.active = false;
        j.key("installed").value(true);  // the page's reader now reads for the loaded weights (web/page.js)
        usage_answer(web, j);
      } else {
        finish(fits ? "" : web->app.ui.notes.back(), true);
      }
    }
  }
  j.end_object();
  web->reply = j.str();
  return web->reply.c_str();
}

// The loaded weights' files and the bytes each holds tensors in (the end of its last tensor), with their serial and
// label, for forward and passkey to read whole (web/page.js); null without weights.
EMSCRIPTEN_KEEPALIVE const char* rv_web_weights_extent(Web* web) {
  rv::JsonWriter j;
  const rv::LoadedWeights* w = web->app.params.weights.get();
  if (!w) {
    j.null();
  } else {
    std::map<std::string, std::uint64_t> ends;
    for (const rv::TensorInfo& t : w->tensors) ends[t.file] = std::max(ends[t.file], t.end);
    j.begin_object().key("serial").value(double(w->serial)).key("label").value(w->label).key("files").begin_object();
    for (const auto& [file, end] : ends) j.key(file.c_str()).value(double(end));
    j.end_object().end_object();
  }
  web->reply = j.str();
  return web->reply.c_str();
}

// Hands over rows the score curve asked for (rv_js_read_rows): bytes [offset, offset + the upload's size) of `file`,
// and builds layer 0's q and k again.
EMSCRIPTEN_KEEPALIVE void rv_web_rows_supply(Web* web, const char* file, double offset) {
  web->rows_asked = false;
  if (!web->loaded_bytes) return;
  web->loaded_bytes->wanted.reset();
  web->loaded_bytes->supply(file, std::uint64_t(offset), take_upload(web));
  web->app.model.caches.score_qk = rv::Cached{};  // its inputs did not change, the bytes it lacked came
  rv::wake(web->window);
}

// A Run it job a worker ran (rv_js_run_jobs): `count` numbers uploaded (flatten_run_answer: a pass's or a passkey
// cell's), or with count < 0 its error; index < 0: the run could not go on.
EMSCRIPTEN_KEEPALIVE void rv_web_run_result(Web* web, double generation, int index, int count, const char* type,
                                            const char* message) {
  if (index < 0) {  // the workers could not start or read the checkpoint: the run ends with why
    rv::run_fail(web->app, std::uint64_t(generation), std::string("Run it's workers: ") + message);
    return rv::wake(web->window);
  }
  rv::Expected<rv::RunAnswer> r = rv::Error{type, message};
  const rv::RunSession* s = web->app.run.get();
  if (count >= 0) {
    const std::vector<std::uint8_t> bytes = take_upload(web);
    std::vector<double> n(static_cast<std::size_t>(count));
    if (bytes.size() >= n.size() * sizeof(double)) std::memcpy(n.data(), bytes.data(), n.size() * sizeof(double));
    if (!s || index >= int(s->jobs.size())) return;  // a stale run's
    r = rv::unflatten_run_answer(s->jobs[std::size_t(index)], n);
  }
  rv::run_deliver(web->app, std::uint64_t(generation), std::size_t(index), r);
  rv::wake(web->window);
}

// The page could not read them: a note; the curve stays random until the tokens or the head change.
EMSCRIPTEN_KEEPALIVE void rv_web_rows_fail(Web* web, const char* message) {
  web->app.ui.notes.push_back(std::string("qk=layer0: ") + message + "; drawing random q and k");
  web->loaded_bytes.reset();  // not asked again for this load
  web->rows_asked = false;
  publish_if_changed(*web);
}

// The choices of a key (param_choices), comma-separated, for the page's HTML controls.
EMSCRIPTEN_KEEPALIVE const char* rv_web_choices(Web* web, const char* key) {
  web->reply.clear();
  for (const std::string& choice : rv::param_choices(key)) web->reply += (web->reply.empty() ? "" : ",") + choice;
  return web->reply.c_str();
}

// The exercises for the page's HTML form (rv::exercises_json), the model brought up to date first.
EMSCRIPTEN_KEEPALIVE const char* rv_web_exercises(Web* web) {
  rv::update_model(web->app.params, web->app.model);
  web->reply = rv::exercises_json(web->app);
  return web->reply.c_str();
}

// The form's Check: exercise `index` with its answers, one per line; the canvas shows them and the verdict too.
// Returns the exercises as rv_web_exercises does ("" if there is no such exercise).
EMSCRIPTEN_KEEPALIVE const char* rv_web_exercise_check(Web* web, int index, const char* lines) {
  rv::update_model(web->app.params, web->app.model);
  std::vector<std::string> answers(1);
  for (const char* c = lines; *c != '\0'; ++c) {
    if (*c == '\n')
      answers.emplace_back();
    else
      answers.back().push_back(*c);
  }
  web->reply = rv::check_exercise_answers(web->app, index, answers) ? rv::exercises_json(web->app) : "";
  rv::wake(web->window);
  return web->reply.c_str();
}

// The form's Show me: the view that explains exercise `index` (its parameters and panel, as a link sets them).
EMSCRIPTEN_KEEPALIVE void rv_web_exercise_show(Web* web, int index) {
  rv::update_model(web->app.params, web->app.model);
  if (index >= 0 && index < int(web->app.model.exercises.size())) rv::show_exercise_view(web->app, index);
  publish_if_changed(*web);
}

// window.ropeviz.lab(options): starts a lab run of these options (a JSON object, keys as the CLI's flags with
// underscores, and "workers"); returns "" when it started, else the message why not. Its runs train in Web Workers.
EMSCRIPTEN_KEEPALIVE const char* rv_web_lab_start(Web* web, const char* options_json) {
  const rv::Expected<std::vector<std::string>> flags = rv::lab_flags_from_json(options_json, &web->labs.workers);
  web->reply = !flags ? flags.error().message : rv::lab_start(web->app, *flags) ? "" : web->app.lab.error;
  web->labs.workers = 0;  // the panel's Run: the page's default
  rv::wake(web->window);  // the panel shows the run now, not at the next input
  return web->reply.c_str();
}

// window.ropeviz.png(panel): the next frame saves that panel (a key of the registry, shown in its bar) or, for "",
// the whole canvas, for the page to hand over. Returns "" or why not.
EMSCRIPTEN_KEEPALIVE const char* rv_web_picture(Web* web, const char* panel) {
  web->reply.clear();
  if (*panel != '\0' && !rv::find_panel(panel)) {
    web->reply = std::string("no panel is called \"") + panel + "\"";
    return web->reply.c_str();
  }
  web->app.ui.pending_picture = true;
  web->app.ui.picture_panel = panel;
  rv::wake(web->window);
  return web->reply.c_str();
}

// The view in words for #a11y (rv::describe), or with `html` as headings and tables for #text-view
// (rv::text_view_html); the model brought up to date first (a panel or set() may have changed the params since).
EMSCRIPTEN_KEEPALIVE const char* rv_web_describe(Web* web, int html) {
  rv::update_model(web->app.params, web->app.model);
  web->reply = html ? rv::text_view_html(web->app) : rv::describe(web->app);
  return web->reply.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* rv_web_state(Web* web) {
  rv::update_model(web->app.params, web->app.model);  // set() then state() sees the new values, no frame needed
  web->reply = rv::state_json(web->app);
  return web->reply.c_str();
}

// {x, y, w, h} of a named control in CSS pixels, or "null" if it has not been drawn.
EMSCRIPTEN_KEEPALIVE const char* rv_web_rect(Web* web, const char* id) {
  auto it = web->app.ui.rects.find(id);
  if (it == web->app.ui.rects.end()) return "null";
  const float s = web->app.ui.scale;
  const rv::Rect& r = it->second;
  rv::JsonWriter j;
  j.begin_object().key("x").value(double(r.x / s)).key("y").value(double(r.y / s));
  j.key("w").value(double(r.w / s)).key("h").value(double(r.h / s)).end_object();
  web->reply = j.str();
  return web->reply.c_str();
}

// The page's devicePixelRatio: the page sizes the canvas backing store to CSS size x ratio (with
// Module.setCanvasSize, not glfwSetWindowSize, which asks for fullscreen when the size equals the
// screen's); fonts and style scale with it here.
EMSCRIPTEN_KEEPALIVE void rv_web_set_scale(Web* web, double ratio) {
  web->app.ui.scale = ratio >= 0.5 && ratio <= 8.0 ? float(ratio) : 1.0f;
  rv::redraw(web->window);  // the page calls this on every resize, which may have cleared the canvas
  rv::wake(web->window);
}

// A wheel turn from the page, in notches (page.js normalises the browser's pixel, line or page deltas), positive
// up and right as ImGui counts them; a burst larger than a few notches is clamped.
EMSCRIPTEN_KEEPALIVE void rv_web_wheel(Web* web, double x, double y) {
  ImGuiIO& io = ImGui::GetIO();
  io.MouseWheelH += float(std::clamp(x, -10.0, 10.0));
  io.MouseWheel += float(std::clamp(y, -10.0, 10.0));
  rv::wake(web->window);
}

// Text from the page's on-screen keyboard field (a touch screen's typing), as typed characters.
EMSCRIPTEN_KEEPALIVE void rv_web_text(Web* web, const char* utf8) {
  ImGui::GetIO().AddInputCharactersUTF8(utf8);
  rv::wake(web->window);
}

// A key the on-screen keyboard sends only as an edit (Backspace): pressed and released through the key queue.
EMSCRIPTEN_KEEPALIVE void rv_web_backspace(Web* web) {
  rv::tap_key(web->window, GLFW_KEY_BACKSPACE);
}

// A finger's vertical swipe of dy CSS pixels: the area under the pointer scrolls as far as the finger moved (ImGui
// scrolls 5 lines per wheel unit). 0 (nothing done) while the finger holds a scrollbar: the page keeps that a drag.
EMSCRIPTEN_KEEPALIVE int rv_web_swipe(Web* web, double dy) {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  if (g.ActiveId != 0 && g.ActiveIdWindow && g.ActiveId == ImGui::GetWindowScrollbarID(g.ActiveIdWindow, ImGuiAxis_Y))
    return 0;
  const double units = dy * web->app.ui.scale / (5.0 * ImGui::GetFontSize());
  ImGui::GetIO().MouseWheel += float(std::clamp(units, -10.0, 10.0));
  rv::wake(web->window);
  return 1;
}

// The page's webglcontextlost (lost = 1) and webglcontextrestored (lost = 0) events.
EMSCRIPTEN_KEEPALIVE void rv_web_gl_lost(Web* web, int lost) {
  web->gl_lost = lost != 0;
  if (lost) return;
  rv::recreate_gl(web->window);
  rv::wake(web->window);
}

// A frame for someone waiting on frames (window.ropeviz.frames()), drawn when page.js's rvRequestFrame says.
EMSCRIPTEN_KEEPALIVE void rv_web_request_frame(Web* web) {
  if (web->window.frames_due < 1) web->window.frames_due = 1;
  rv_js_request_frame();
}

}  // extern "C"

int main() {
  if (EM_ASM_INT({ return typeof document == "undefined"; })) return 0;  // a lab worker (web/page.js): no window
  Web* web = new Web();                                                  // lives as long as the page
  web->app.ui.can_open_files = true;                                     // page.js: a file picker, drop and paste
  web->labs.app = &web->app;
  web->labs.window = &web->window;
  rv::install_web_lab(web->labs);
  rv::run_session(web->app).remote = true;  // Run it's passes in Web Workers (sync_run)
  // At the canvas's size, which the page shell (web/shell.html) set before making its context: no resize of a
  // live context.
  const int width = EM_ASM_INT({ return Module["canvas"].width; });
  const int height = EM_ASM_INT({ return Module["canvas"].height; });
  std::string error = rv::open_window(web->window, "ropeviz", width, height);
  if (!error.empty()) {
    rv_js_fatal(error.c_str());
    return 1;
  }
  // The GLFW port cannot change cursors, and its cursor-mode calls ask for pointer lock.
  ImGui::GetIO().ConfigFlags |= ImGuiConfigFlags_NoMouseCursorChange;
  EM_ASM({ Module["rvStarted"]($0, $1); }, web, &web->labs);
  web->window.on_wake = rv_js_request_frame;
  web->window.skip_unchanged = true;  // a WebGL canvas not drawn to keeps showing its last frame
  rv::wake(web->window);              // page.js draws the first frame as soon as main has returned
  return 0;  // the runtime stays: page.js draws the next frames (rv_web_frame) when they are due
}
