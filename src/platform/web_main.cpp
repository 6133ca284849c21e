// Browser seam: Emscripten main loop, and the C functions behind window.ropeviz (web/page.js).
// JS holds the Web pointer and passes it back, so no C++ global holds app state.
#include <GLFW/glfw3.h>
#include <emscripten/emscripten.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/export.hpp"
#include "app/lab_session.hpp"
#include "app/model.hpp"
#include "app/params.hpp"
#include "app/report.hpp"
#include "imgui.h"
#include "platform/window.hpp"

namespace {

struct Web {
  rv::App app;
  rv::Window window;
  std::string last_hash;                // what the page's URL hash says now
  std::vector<std::string> last_notes;  // the notes the text layer last said
  std::string reply;                    // storage for strings returned to JS
  bool gl_lost = false;                 // between webglcontextlost and webglcontextrestored: no GL calls
  std::string upload;  // a file's bytes, written by the page (rv_web_upload_buffer) before rv_web_load_config
};

// Tells the page what changed: the new hash (for history.replaceState) and the #a11y text.
EM_JS(void, rv_js_state_changed, (const char* hash, const char* text),
      { Module.rvStateChanged(UTF8ToString(hash), UTF8ToString(text)); });
EM_JS(void, rv_js_frame_drawn, (double frames), { Module.rvFrameDrawn(frames); });
// Hands an export to the page, which offers it as a download.
EM_JS(void, rv_js_download, (const char* name, const char* mime, const char* content),
      { Module.rvDownload(UTF8ToString(name), UTF8ToString(mime), UTF8ToString(content)); });

// Saves the canvas as a PNG download, right after a frame was drawn (the drawing buffer is still intact).
EM_JS(void, rv_js_save_picture, (const char* name), { Module.rvSavePicture(UTF8ToString(name)); });

// Opens the page's file picker for a config.json (the "load config.json" button).
EM_JS(void, rv_js_open_config, (), { Module.rvOpenConfig(); });

// Copies the page's address (which carries the view in its hash) to the clipboard; a refusal
// (no permission, no user activation) becomes a note through rv_web_note.
EM_JS(void, rv_js_copy_link, (void* web), { Module.rvCopyLink(web); });

// Called outside a frame (after one, and after rv_web_apply). Only when the params changed does
// describe() read the model, which must then reflect what a panel or set() changed since the
// frame's update: the one place this seam updates it besides rv_web_state.
void publish_if_changed(Web& web) {
  std::string hash = rv::encode_query(web.app.params);
  if (hash == web.last_hash && web.app.ui.notes == web.last_notes) return;
  web.last_hash = hash;
  web.last_notes = web.app.ui.notes;
  rv::update_model(web.app.params, web.app.model);
  rv_js_state_changed(hash.c_str(), rv::describe(web.app).c_str());
}

void loop(void* arg) {
  Web& web = *static_cast<Web*>(arg);
  if (web.gl_lost) return;  // the page says so; GL calls would only fail until the context is back
  glfwPollEvents();
  rv::render_frame(web.window, web.app);
  if (const auto& file = web.app.ui.pending_export) {
    rv_js_download(file->name.c_str(), file->mime.c_str(), file->content.c_str());
    web.app.ui.pending_export.reset();
  }
  if (web.app.ui.pending_picture) {
    web.app.ui.pending_picture = false;
    rv_js_save_picture(rv::picture_name(web.app).c_str());
  }
  if (web.app.ui.pending_open_config) {
    web.app.ui.pending_open_config = false;
    rv_js_open_config();
  }
  if (web.app.ui.pending_copy_link) {
    web.app.ui.pending_copy_link = false;
    publish_if_changed(web);  // the address must hold this frame's view before it is copied
    rv_js_copy_link(&web);
  }
  publish_if_changed(web);
  rv_js_frame_drawn(double(web.app.ui.frames));
}

}  // namespace

extern "C" {

// Applies "key=value&..." from the URL hash (on load, on hashchange) or from window.ropeviz.set();
// returns the notes it raised, one per line, "" if none.
EMSCRIPTEN_KEEPALIVE const char* rv_web_apply(Web* web, const char* hash) {
  std::vector<std::string> notes;
  rv::apply_query(web->app.params, hash, notes);
  web->app.ui.notes.insert(web->app.ui.notes.end(), notes.begin(), notes.end());
  if (!notes.empty()) web->last_hash.clear();  // the address goes back to the view that holds
  publish_if_changed(*web);
  web->reply.clear();
  for (const std::string& n : notes) web->reply += n + "\n";
  return web->reply.c_str();
}

// A message from the page for the notes area (e.g. why the clipboard refused the link).
EMSCRIPTEN_KEEPALIVE void rv_web_note(Web* web, const char* text) {
  web->app.ui.notes.push_back(text);
}

// Room for `bytes` of a file the page is about to hand over (dropped, pasted or picked): it writes them into
// HEAPU8 at the returned address, then calls rv_web_load_config. Through the heap, not ccall's stack copy.
EMSCRIPTEN_KEEPALIVE char* rv_web_upload_buffer(Web* web, int bytes) {
  web->upload.assign(std::size_t(std::max(0, bytes)), '\0');
  return web->upload.data();
}

// Opens the uploaded bytes as a config.json named `name`; total_bytes is the whole file's size (the page sends at
// most one byte past the reader's limit). A note says what happened; a bad file leaves the model as it was.
EMSCRIPTEN_KEEPALIVE void rv_web_load_config(Web* web, const char* name, double total_bytes) {
  rv::load_config(web->app.params, web->upload, name, std::size_t(std::max(0.0, total_bytes)), web->app.ui.notes);
  web->upload = std::string();
  publish_if_changed(*web);
}

// The choices of a key (param_choices), comma-separated, for the page's HTML controls.
EMSCRIPTEN_KEEPALIVE const char* rv_web_choices(Web* web, const char* key) {
  web->reply.clear();
  for (const std::string& choice : rv::param_choices(key)) web->reply += (web->reply.empty() ? "" : ",") + choice;
  return web->reply.c_str();
}

// window.ropeviz.lab(options): starts a lab run of these options (a JSON object, keys as the CLI's flags with
// underscores); returns "" when it started, else the message why not. The run advances in frames.
EMSCRIPTEN_KEEPALIVE const char* rv_web_lab_start(Web* web, const char* options_json) {
  const rv::Expected<std::vector<std::string>> flags = rv::lab_flags_from_json(options_json);
  web->reply = !flags ? flags.error().message : rv::lab_start(web->app, *flags) ? "" : web->app.lab.error;
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
  web->reply = "{\"x\":" + std::to_string(r.x / s) + ",\"y\":" + std::to_string(r.y / s) +
               ",\"w\":" + std::to_string(r.w / s) + ",\"h\":" + std::to_string(r.h / s) + "}";
  return web->reply.c_str();
}

// The page's devicePixelRatio: the page sizes the canvas backing store to CSS size x ratio (with
// Module.setCanvasSize, not glfwSetWindowSize, which asks for fullscreen when the size equals the
// screen's); fonts and style scale with it here.
EMSCRIPTEN_KEEPALIVE void rv_web_set_scale(Web* web, double ratio) {
  web->app.ui.scale = ratio >= 0.5 && ratio <= 8.0 ? float(ratio) : 1.0f;
}

// A wheel turn from the page, in notches (page.js normalises the browser's pixel, line or page deltas), positive
// up and right as ImGui counts them; a burst larger than a few notches is clamped.
EMSCRIPTEN_KEEPALIVE void rv_web_wheel(Web*, double x, double y) {
  ImGuiIO& io = ImGui::GetIO();
  io.MouseWheelH += float(std::clamp(x, -10.0, 10.0));
  io.MouseWheel += float(std::clamp(y, -10.0, 10.0));
}

// The page's webglcontextlost (lost = 1) and webglcontextrestored (lost = 0) events.
EMSCRIPTEN_KEEPALIVE void rv_web_gl_lost(Web* web, int lost) {
  web->gl_lost = lost != 0;
  if (!lost) rv::recreate_gl(web->window, web->app);
}

}  // extern "C"

int main() {
  Web* web = new Web();               // lives as long as the page
  web->app.ui.can_open_files = true;  // page.js: a file picker, drop and paste
  std::string error = rv::open_window(web->window, "ropeviz", 1280, 800);
  if (!error.empty()) {
    EM_ASM({ Module.rvFatal(UTF8ToString($0)); }, error.c_str());
    return 1;
  }
  // The GLFW port cannot change cursors, and its cursor-mode calls ask for pointer lock.
  ImGui::GetIO().ConfigFlags |= ImGuiConfigFlags_NoMouseCursorChange;
  EM_ASM({ Module.rvStarted($0); }, web);
  emscripten_set_main_loop_arg(loop, web, 0, true);
  return 0;
}
