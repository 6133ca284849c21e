// The lesson's sections of the app's JSON state, and the exercises as the page's form reads them.
#pragma once
#include <string>

#include "app/state/state.hpp"

namespace rv {

class JsonWriter;  // core/base/json_writer.hpp

// state()'s lesson, playing and exercises: the open lesson step, whether Play runs, each exercise's last verdict.
void learn_state(JsonWriter& j, const App& app);
// The exercises as the page's HTML form shows them: [{title, prompt, hint, parts: [{label, choices, answer}],
// verdict ("unanswered", "right", "wrong", "malformed"), heading ("Right." ...), message}] (heading and message:
// the feedback as the panel shows it, "" when unanswered).
std::string exercises_json(const App& app);

}  // namespace rv
