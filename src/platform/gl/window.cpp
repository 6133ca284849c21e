// Shared window plumbing: GLFW context, ImGui input backend + our renderer, theme at the right scale, one frame.
#include "platform/gl/window.hpp"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "app/shell/app.hpp"
#include "app/ui/theme.hpp"
#include "backends/imgui_impl_glfw.h"
#include "imgui.h"
#include "platform/gl/gl.hpp"
#include "platform/gl/gl_heatmap.hpp"
#include "platform/gl/gl_renderer.hpp"

namespace rv {
namespace {

Window* owner(GLFWwindow* handle) {
  return static_cast<Window*>(glfwGetWindowUserPointer(handle));
}

// Every GLFW event wakes the window. ImGui's backend, installed after these, calls them from its own callbacks
// (it chains the ones it finds); the cursor position, sizes and exposure are not the backend's and only wake.
void install_wake_callbacks(GLFWwindow* h) {
  glfwSetMouseButtonCallback(h, [](GLFWwindow* w, int, int, int) { wake(*owner(w)); });
  glfwSetScrollCallback(h, [](GLFWwindow* w, double, double) { wake(*owner(w)); });
  glfwSetCharCallback(h, [](GLFWwindow* w, unsigned int) { wake(*owner(w)); });
  glfwSetWindowFocusCallback(h, [](GLFWwindow* w, int) { wake(*owner(w)); });
  glfwSetCursorEnterCallback(h, [](GLFWwindow* w, int) { wake(*owner(w)); });
  glfwSetCursorPosCallback(h, [](GLFWwindow* w, double, double) { wake(*owner(w)); });
  glfwSetWindowSizeCallback(h, [](GLFWwindow* w, int, int) { wake(*owner(w)); });
  glfwSetFramebufferSizeCallback(h, [](GLFWwindow* w, int, int) { wake(*owner(w)); });
  glfwSetWindowRefreshCallback(h, [](GLFWwindow* w) { wake(*owner(w)); });
}

// True while a mouse button or key is down: ImGui repeats held buttons and keys with no new event.
bool input_held() {
  const ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsAnyMouseDown()) return true;
  for (bool down : io.KeysDown)
    if (down) return true;
  return false;
}

// GLFW's key callback: queued, because ImGui 1.86 reads io.KeysDown once a frame and a key pressed and released
// between two frames (a quick tap, a scripted Enter) would never be seen down.
void queue_key(GLFWwindow* handle, int key, int scancode, int action, int mods) {
  if (Window* w = owner(handle)) {
    w->keys.push_back({key, scancode, action, mods});
    wake(*w);
  }
}

// Hands queued key events to ImGui's GLFW backend in order, at most one change per key a frame: a release that
// follows a press of the same key waits for the next frame.
void deliver_keys(Window& w) {
  std::vector<int> changed;
  std::size_t n = 0;
  for (; n < w.keys.size(); ++n) {
    const KeyEvent& e = w.keys[n];
    if (std::find(changed.begin(), changed.end(), e.key) != changed.end()) break;
    if (e.action != GLFW_REPEAT) changed.push_back(e.key);
    ImGui_ImplGlfw_KeyCallback(w.handle, e.key, e.scancode, e.action, e.mods);
  }
  w.keys.erase(w.keys.begin(), w.keys.begin() + std::ptrdiff_t(n));
}

}  // namespace

void tap_key(Window& w, int glfw_key) {
  queue_key(w.handle, glfw_key, 0, GLFW_PRESS, 0);
  queue_key(w.handle, glfw_key, 0, GLFW_RELEASE, 0);
}

std::string open_window(Window& w, const char* title, int width, int height) {
  if (!glfwInit()) return "could not initialise GLFW (no display?)";
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  w.handle = glfwCreateWindow(width, height, title, nullptr, nullptr);
  if (!w.handle) {
    glfwTerminate();
    return "could not create an OpenGL 3.3 window (is OpenGL 3.3 / WebGL2 available?)";
  }
  glfwMakeContextCurrent(w.handle);
  glfwSwapInterval(1);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &w.max_texture);  // before the shader builds: a query waits for the GPU
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;               // the URL / --state carries what matters, not imgui.ini
  io.ConfigInputTextCursorBlink = false;  // a steady text cursor: no frames just to blink it
  glfwSetWindowUserPointer(w.handle, &w);
  install_wake_callbacks(w.handle);
  ImGui_ImplGlfw_InitForOpenGL(w.handle, true);
  glfwSetKeyCallback(w.handle, queue_key);  // in place of the backend's: deliver_keys forwards to it
  const std::string error = gl_renderer_init(w.renderer);
  w.heatmaps = std::make_shared<GlHeatmap>(w.renderer.build.program, w.max_texture);
  return error;
}

void redraw(Window& w) { w.drawn_key.reset(); }

void wake(Window& w) {
  w.frames_due = kSettleFrames;
  if (w.on_wake) w.on_wake();
}

bool next_frame_due(Window& w, const App& app) {
  if (app_animating(app) || input_held() || !w.keys.empty()) w.frames_due = kSettleFrames;
  if (w.frames_due > 0) --w.frames_due;
  return w.frames_due > 0;
}

void close_window(Window& w) {
  gl_renderer_shutdown(w.renderer);
  w.heatmaps.reset();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  if (w.handle) glfwDestroyWindow(w.handle);
  glfwTerminate();
  w.handle = nullptr;
}

void sync_scale(Window& w, const App& app) {
  if (w.font_scale == app.ui.scale) return;
  theme::apply(app.ui.scale);
  gl_renderer_upload_fonts(w.renderer);
  w.font_scale = app.ui.scale;
  redraw(w);  // the atlas's texture has new pixels under the same name
}

void recreate_gl(Window& w) {
  w.renderer = GlRenderer{};  // forget the dead names: deleting them would only raise GL errors
  w.frames_sent = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &w.max_texture);
  gl_renderer_init(w.renderer);
  w.heatmaps = std::make_shared<GlHeatmap>(w.renderer.build.program, w.max_texture);  // every slot uploads again
  redraw(w);
  w.font_scale = 0.0f;  // sync_scale rebuilds the atlas (its pixels were freed) and uploads it
}

namespace {
constexpr float kMaxFrameSeconds = 0.1f;

// A hash of what decides this frame's pixels: the display, ImGui's draw lists (vertices, indices and each command's
// clip, texture, ranges and callback), then what the heatmaps' callbacks draw.
std::uint64_t frame_key(const ImDrawData& d, GlHeatmap& heatmaps) {
  std::uint64_t h = 0;
  for (const ImVec2& v : {d.DisplayPos, d.DisplaySize, d.FramebufferScale}) h = hash_bytes(h, &v, sizeof v);
  for (int n = 0; n < d.CmdListsCount; ++n) {
    const ImDrawList& list = *d.CmdLists[n];
    h = hash_bytes(h, list.VtxBuffer.Data, std::size_t(list.VtxBuffer.Size) * sizeof(ImDrawVert));
    h = hash_bytes(h, list.IdxBuffer.Data, std::size_t(list.IdxBuffer.Size) * sizeof(ImDrawIdx));
    for (const ImDrawCmd& c : list.CmdBuffer) {  // field by field: the struct's padding is not data
      const std::uint64_t fields[6] = {std::uint64_t(std::uintptr_t(c.TextureId)), c.VtxOffset, c.IdxOffset,
                                       c.ElemCount, std::uint64_t(std::uintptr_t(c.UserCallback)),
                                       std::uint64_t(std::uintptr_t(c.UserCallbackData))};
      h = hash_bytes(hash_bytes(h, &c.ClipRect, sizeof c.ClipRect), fields, sizeof fields);
    }
  }
  const std::uint64_t heat = heatmaps.take_drawn();
  return hash_bytes(h, &heat, sizeof heat);
}

}  // namespace

std::string render_frame(Window& w, App& app) {
  deliver_keys(w);
  const auto start = std::chrono::steady_clock::now();
  const auto timed = [&app, start] {
    app.ui.frame_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return std::string();
  };
  sync_scale(w, app);
  if (app.ui.gpu != w.heatmaps) app.ui.gpu = w.heatmaps;  // panels draw through it
  ImGui_ImplGlfw_NewFrame();
  // A stalled frame (a busy machine, a tab back from the background) counts as at most kMaxFrameSeconds: a key
  // held across it stays one press, short of ImGui's key-repeat delay (0.275 s), and a playing sweep does not jump.
  ImGuiIO& io = ImGui::GetIO();
  io.DeltaTime = std::min(io.DeltaTime, kMaxFrameSeconds);
  ImGui::NewFrame();
  frame(app);
  ImGui::Render();
  // The shader's build is checked from the second frame on: the first is sent without waiting for the GPU.
  std::string error;
  if (w.frames_sent > 0 && !gl_renderer_check(w.renderer, error)) return error;
  // Most of the frames that settle an event repeat the last one, and a software GPU pays for every pixel of each
  // (docs/building.md): where the surface keeps its picture, such a frame is not drawn.
  if (w.skip_unchanged) {
    const std::uint64_t key = frame_key(*ImGui::GetDrawData(), *w.heatmaps);
    if (key == w.drawn_key && !app.ui.pending_picture) return timed();
    w.drawn_key = key;
  }
  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(w.handle, &fb_w, &fb_h);
  glViewport(0, 0, fb_w, fb_h);
  const ImVec4 background = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];  // the app's window draws none (frame())
  glClearColor(background.x, background.y, background.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  gl_renderer_draw(w.renderer, ImGui::GetDrawData());
  ++w.frames_sent;
  return timed();
}

}  // namespace rv
