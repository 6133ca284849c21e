// Keyboard navigation of the canvas: Tab / Shift+Tab through every control with a visible focus, Enter and Space
// press, the arrows step the position unless the keyboard is moving the focus.
#pragma once
#include <string>

#include "app/state/state.hpp"

namespace rv {

// Once a frame, after NewFrame and before any item (app.cpp's frame).
void keyboard_focus();
// True while the keyboard moves the focus (after Tab, until a click or Escape): the arrows are ImGui's then.
bool keyboard_navigating();
// The named control (Ui::rects) holding the keyboard focus: the smallest named rectangle around the focused item's
// centre; null when nothing has a visible focus.
const std::string* focused_control(const Ui& ui);

}  // namespace rv
