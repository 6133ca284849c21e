// The platform-independent app: one call draws a whole frame. Desktop and browser loops call it
// between ImGui::NewFrame() and ImGui::Render(); the headless tests call it with no window at all.
#pragma once
#include "app/state/state.hpp"

namespace rv {

// Brings the model up to date, then draws every panel into the full display.
void frame(App& app);
// True while something in the app moves by itself (a training run, a playing animation): the desktop and
// browser loops then draw every frame; otherwise they draw only after an event, and an idle app costs nothing.
// The one place to say so: add the condition here.
bool app_animating(const App& app);

}  // namespace rv
