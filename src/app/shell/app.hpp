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
// True while a lab run trains elsewhere (threads, Web Workers): no frame is due for it, but the loops draw one every
// kPollSeconds or so (the desktop; the page on its own timer, web/page.js) to take in and show what arrived.
bool app_polling(const App& app);
constexpr double kPollSeconds = 0.1;

}  // namespace rv
