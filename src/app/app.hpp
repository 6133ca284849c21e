// The platform-independent app: one call draws a whole frame. Desktop and browser loops call it
// between ImGui::NewFrame() and ImGui::Render(); the headless tests call it with no window at all.
#pragma once
#include "app/state.hpp"

namespace rv {

// Brings the model up to date, then draws every panel into the full display.
void frame(App& app);

}  // namespace rv
