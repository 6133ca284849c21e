// GLFW window + ImGui context + OpenGL3 renderer, shared by the desktop and browser loops.
#pragma once
#include <string>
#include <vector>

#include "app/state.hpp"
#include "platform/gl_renderer.hpp"

struct GLFWwindow;

namespace rv {

// A key event from GLFW, held until ImGui can see it (deliver_keys).
struct KeyEvent {
  int key, scancode, action, mods;
};

struct Window {
  GLFWwindow* handle = nullptr;  // its GLFW user pointer is this Window
  GlRenderer renderer;
  float font_scale = 0.0f;     // the scale the font atlas was built for
  std::vector<KeyEvent> keys;  // key events not yet handed to ImGui
  App* app = nullptr;          // for callbacks that act on the app (the desktop's dropped files)
};

// Opens the window and sets up ImGui for it. Returns an error message, or "" on success.
std::string open_window(Window& w, const char* title, int width, int height);
void close_window(Window& w);
// Re-applies theme and fonts when app.ui.scale changed (HiDPI, moving between monitors).
void sync_scale(Window& w, const App& app);
// After the GL context was lost and restored (browsers): every old GL name is dead, so build the
// renderer, font texture and heatmaps (which re-upload every slot) again.
void recreate_gl(Window& w, App& app);
// One whole frame: events already polled; times the CPU work into app.ui.frame_ms.
void render_frame(Window& w, App& app);

}  // namespace rv
