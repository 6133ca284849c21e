// The app's state in words and in JSON: the #a11y text, window.ropeviz.state() and set().
#pragma once
#include <string>
#include <string_view>

#include "app/state.hpp"

namespace rv {

// What the canvas shows now, in plain sentences for screen readers.
std::string describe(const App& app);
// window.ropeviz.state(): params, d_model, absolute {ok, error}, rope {ok, theta, angle}, frame_ms...
std::string state_json(const App& app);
// window.ropeviz.set(partial): applies a JSON object of parameters as the UI would. Returns "" or
// a message when the text is not a JSON object; per-key problems become notes in app.ui.notes.
std::string apply_json(App& app, std::string_view json_text);
// Shortest text that reads back as the same double (for labels that must be exact).
std::string format_number(double v, int significant = 6);

}  // namespace rv
