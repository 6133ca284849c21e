// state()'s lesson and exercises (docs/window-ropeviz.md) and the page's exercise form as JSON.
#include "app/lesson/lesson_state_json.hpp"

#include "app/lesson/exercises_ui.hpp"
#include "core/base/json_writer.hpp"

namespace rv {

namespace {
// An exercise's last verdict, from its current feedback (current_feedback: none also when its question changed).
const char* verdict_name(const Feedback* f) {
  if (!f) return "unanswered";
  return f->verdict == Verdict::Right ? "right" : f->verdict == Verdict::Wrong ? "wrong" : "malformed";
}
}  // namespace

// The learner's path: the open lesson step, whether Play runs, and each exercise's last verdict.
void learn_state(JsonWriter& j, const App& app) {
  j.key("lesson").value(app.params.lesson).key("playing").value(app.ui.play.on);
  j.key("exercises").begin_array();
  for (const Exercise& e : app.model.exercises) {
    const char* verdict = verdict_name(current_feedback(app.ui.exercises[int(e.id)], e));
    j.begin_object().key("title").value(e.title).key("verdict").value(verdict).end_object();
  }
  j.end_array();
}

std::string exercises_json(const App& app) {
  JsonWriter j;
  j.begin_array();
  for (const Exercise& e : app.model.exercises) {
    const ExerciseEntry& entry = app.ui.exercises[int(e.id)];
    j.begin_object().key("title").value(e.title).key("prompt").value(e.prompt).key("hint").value(e.hint);
    j.key("parts").begin_array();
    for (std::size_t k = 0; k < e.parts.size() && k < std::size_t(kExercisePartsMax); ++k) {
      const ExercisePart& part = e.parts[k];
      j.begin_object().key("label").value(part.label).key("choices").values(part.choices);
      j.key("answer").value(entry.answers[k]).end_object();
    }
    j.end_array();
    const Feedback* f = current_feedback(entry, e);  // the form says "<heading> <message>"
    j.key("verdict").value(verdict_name(f)).key("heading").value(f ? verdict_heading(f->verdict) : "");
    j.key("message").value(f ? f->message : std::string());
    j.end_object();
  }
  j.end_array();
  return j.str();
}

}  // namespace rv
