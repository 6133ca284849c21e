// GLFW window + ImGui context (GLFW backend for input) + the app's GL renderer (gl_renderer.hpp), shared by the
// desktop and browser loops.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/state/state.hpp"
#include "platform/gl/gl_heatmap.hpp"
#include "platform/gl/gl_renderer.hpp"

struct GLFWwindow;

namespace rv {

// A key event from GLFW, held until ImGui can see it (deliver_keys).
struct KeyEvent {
  int key, scancode, action, mods;
};

// Frames on demand: after the last event, ImGui settles hover, tab selection, popups and layout within a few
// frames; then the seams wait for the next event.
constexpr int kSettleFrames = 6;

struct Window {
  GLFWwindow* handle = nullptr;  // its GLFW user pointer is this Window
  GlRenderer renderer;
  // Made with the renderer, drawn with its shader; render_frame gives it to the App.
  std::shared_ptr<GlHeatmap> heatmaps;
  float font_scale = 0.0f;        // the scale the font atlas was built for
  std::vector<KeyEvent> keys;     // key events not yet handed to ImGui
  App* app = nullptr;             // for callbacks that act on the app (the desktop's dropped files)
  int max_texture = 0;            // GL_MAX_TEXTURE_SIZE, asked before any GPU work is queued
  int frames_due = 0;             // frames still to draw for the last event
  int frames_sent = 0;            // frames drawn with this GL context's renderer
  std::function<void()> on_wake;  // called by wake(): the browser seam schedules a frame there
  // Set by a seam whose surface keeps showing the last frame drawn (the browser's canvas): a frame that would draw
  // the same pixels is not drawn (render_frame). The desktop draws every frame: after a swap its back buffer is
  // undefined, and --screenshot reads it.
  bool skip_unchanged = false;
  // A hash of what decided the last drawn frame's pixels (render_frame); none: the next frame is drawn whatever it
  // shows.
  std::optional<std::uint64_t> drawn_key;
};

// Opens the window and sets up ImGui for it; every GLFW event (input, focus, resize, expose) wakes it. Returns
// an error message, or "" on success.
std::string open_window(Window& w, const char* title, int width, int height);
// Something happened (an event, a state change from outside the frame): the next kSettleFrames frames are due.
void wake(Window& w);
// The surface lost its pixels (resized, restored): the next frame is drawn whatever it shows.
void redraw(Window& w);
// A GLFW key pressed and released, through the key queue (the web page's on-screen keyboard).
void tap_key(Window& w, int glfw_key);
// After a frame: whether another is due. It is while the app animates (app_animating), a mouse button or key
// is held (ImGui repeats), key events wait for a frame, or frames for the last event remain.
bool next_frame_due(Window& w, const App& app);
void close_window(Window& w);
// Re-applies theme and fonts when app.ui.scale changed (HiDPI, moving between monitors).
void sync_scale(Window& w, const App& app);
// After the GL context was lost and restored (browsers): every old GL name is dead, so build the
// renderer, font texture and heatmaps (which re-upload every slot) again.
void recreate_gl(Window& w);
// One whole frame: events already polled; times the CPU work into app.ui.frame_ms. With skip_unchanged, a frame
// whose draw lists and heatmaps are the last drawn frame's, with no picture wanted, sends nothing to the GPU.
// Returns "" or why nothing can be drawn (the UI shader did not build).
std::string render_frame(Window& w, App& app);

}  // namespace rv
