// The app's state in words and in JSON: the #a11y text and window.ropeviz.state().
#pragma once
#include <string>

#include "app/state/state.hpp"
#include "core/base/format.hpp"

namespace rv {

// What the canvas shows now, in plain sentences for screen readers.
std::string describe(const App& app);
// The chosen model in sentences (its source, rope type, rotated dims, context), or "" for free parameters.
std::string describe_model(const App& app);
// Sentences both describe() and the text view use: whether the learned table serves position m (with the
// IndexError when not), the score at m against the key at n, and the open lesson step's text with its live numbers
// (and, at step 1, its picture in words; "" when no step is open).
std::string lookup_sentence(const App& app);
std::string score_sentence(const App& app);
std::string lesson_step_sentences(const App& app);
// window.ropeviz.state(): params, d_model, absolute {ok, error}, rope {ok, theta, angle}, frame_ms...
std::string state_json(const App& app);
// state(), as window.ropeviz.state() returns it, as a file to save.
ExportFile export_state_json(const App& app);

}  // namespace rv
