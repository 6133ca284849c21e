// Small custom widgets shared by the panels: the position slider with its table marker, number fields for link keys,
// the model lock, named control rectangles for the test hook, formula tooltips, the error box.
#pragma once
#include <string>
#include <string_view>

#include "app/state/params.hpp"
#include "app/state/state.hpp"
#include "imgui.h"

namespace rv {

// Every child area's flags: Tab moves through the controls of all of them as one list (app/ui/keyboard.cpp's
// keyboard_focus).
constexpr ImGuiWindowFlags kChildFlags = ImGuiWindowFlags_NavFlattened;

// The position slider maps u in [0, 1] onto positions: linear up to lin_end (fine steps around the
// table), then logarithmic up to reach (10^6 or more). Pure functions, so tests can aim at a value.
struct PositionScale {
  double lin_end;  // position at u = 0.5
  double reach;    // position at u = 1
  static PositionScale for_table(int max_position);
  double to_u(double position) const;
  long long to_position(double u) const;
};

// Horizontal inset of the slider's track inside its rectangle (u = 0 and u = 1 sit here).
float position_slider_inset();
// Slider for a position, with max_position (and a model's length before extension `original`, when > 0) marked on the
// track and ticks labelled under it. Returns true when changed.
bool position_slider(const char* id, long long* position, int max_position, long long original, float width,
                     ImU32 accent);
// Stores the last item's rectangle under `name` (device pixels) for window.ropeviz.rect().
void record_rect(Ui& ui, std::string_view name);
// SameLine() if an item `width` wide still fits on the current line, else a new line.
void same_line_if_fits(float width);
// A wrapped tooltip with `text` while the last item is hovered.
void hover_tip(const char* text, const char* more = nullptr);  // `more`: a second paragraph
// hover_tip with a link key's help text from its table row (app/state/params.cpp), then `more`.
void key_tip(const char* key, const char* more = nullptr);
// "(?)" marker whose tooltip states a formula.
void formula_tip(const char* text, const char* more = nullptr);
// While a model is chosen, the fields it decides are greyed out (model_bound); their tooltips still show.
struct ModelLock {
  bool locked;
  ModelLock(const App& app, Key key);
  ~ModelLock();
};
// A number field for the link key `key` under one rule: typed text applies on Enter or when the field loses focus
// (Escape restores it), never per keystroke, never lost; it goes through set_param like a link. step > 0 adds
// "-" / "+" buttons (Shift: ten steps). The field takes 55% of the available width; `label` follows it.
void number_field(App& app, const char* label, TypedKey<double> key, double value, double step);
// After the ImGui::InputText of link key `key` (`enter`: it returned true): keeps the live text while the field is
// active, and applies what was typed (when it differs from `shown`) through set_param on Enter or when the field
// loses focus; Escape drops it. Every typed field of a link key ends with it.
void commit_typed(App& app, Key key, const char* text, const char* shown, bool enter);
// An unmistakable error block: red frame, bold title line, the full message.
void error_box(const char* title, const std::string& message);

}  // namespace rv
