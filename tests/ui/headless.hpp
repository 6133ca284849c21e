// A headless ImGui harness: a context with a built font atlas and a fixed display, no window,
// no renderer; frames run the real app and synthetic mouse input reaches it as from a backend.
#pragma once
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "app/shell/app.hpp"
#include "app/state/state.hpp"
#include "imgui.h"

namespace rv::test {

// A display size in logical pixels and its scale (device pixels per logical pixel).
struct Display {
  float w, h, scale;
};
// The displays layout tests cover: laptop, small, full HD, and high-DPI (scale 2).
constexpr Display kEveryDisplay[] = {{1280, 800, 1}, {800, 600, 1}, {1920, 1080, 1}, {1280, 800, 2}};

class Headless {
 public:
  explicit Headless(float width = 1280, float height = 800, float scale = 1.0f);
  ~Headless();
  Headless(const Headless&) = delete;
  Headless& operator=(const Headless&) = delete;

  // Applies a link's "key=value&..." as the page would; returns the notes it raised.
  std::vector<std::string> set_state(const std::string& query);
  void frame();                            // one full app frame
  void resize(float width, float height);  // a new display size in logical pixels, from the next frame on
  // One frame, returning the text it drew as read back from the glyphs in its draw lists, window by window, a
  // line per drawn line: what a user sees, so text scrolled out of view, clipped by its window or in a closed tab is
  // absent.
  std::string frame_text();
  // The text of the frame last rendered (ImGui::Render), read back as frame_text reads it: for a test that draws its
  // own windows between ImGui::NewFrame and ImGui::Render.
  static std::string drawn_text();
  // frame_text with its lines joined by spaces, so a wrapped sentence reads whole.
  std::string frame_sentences();
  void frames(int n) {
    for (int i = 0; i < n; ++i) frame();
  }
  // Frames while the lab trains (at most max_frames), each after slice_ms of training on this thread (frame() trains
  // its own kLabSliceMs too; runs on threads or workers are polled, 2 ms apart): what a user sees, at fewer frames, so
  // that a frame's drawing, dear under the sanitizers, does not outweigh the training. Returns how many ran.
  int frames_while_lab_runs(int max_frames = 20000, double slice_ms = 500);
  void mouse_move(float x, float y);
  void mouse_down(bool down);
  void key(int imgui_key, bool shift = false);  // press and release over two frames
  void type(const std::string& text);           // characters typed into the focused field, one frame
  void click(const std::string& name);          // a left click at the centre of a named control, over three frames
  Rect rect(const std::string& name) const;     // a named control's rectangle
  // Presses the left button at fraction u across the named control, releases after dragging to v.
  void drag(const std::string& name, double u_from, double u_to, int steps = 6);

  App app;

 private:
  ImGuiContext* context_;
};

// Runs body on a fresh harness for every link state x display (the state applied, no frame run
// yet), with the state, display and ImGui's first assertion message attached to any failure.
void for_each_setting(std::initializer_list<const char*> states, const std::function<void(Headless&)>& body);

// Whether `part` occurs in `text`; whether it occurs in any of the notes.
bool contains(const std::string& text, const std::string& part);
bool has_note(const std::vector<std::string>& notes, const std::string& part);

// A lab document without its times, which differ between runs: from "seconds" (then "tokens_per_s") up to "methods".
std::string without_times(const std::string& doc);

}  // namespace rv::test
