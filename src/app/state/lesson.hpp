// The guided lesson: its sections as steps, each a view (a link applied through set_param), a panel to look at, a
// short text written for this app and one line of live numbers from the model. #lesson=K opens step K.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "app/state/state.hpp"

namespace rv {

struct LessonStep {
  const char* section;  // the lesson's section: "2.3"
  const char* title;
  const char* view;  // the link query the step applies ("model=none&position=3&tab_top=rotations")
  const char* look;  // the panel it points at (a registry key), drawn with a highlighted frame
  const char* text;  // what to look at; every number comes from `live`
  void (*live)(const App& app, char* out, std::size_t size);  // the numbers to see now, from the model
};

inline constexpr int kLessonSteps = 7;
const LessonStep& lesson_step(int step);  // 1..kLessonSteps

// Applies step's view to p (no-op for 0). Used by the `lesson` link key, so #lesson=3, set({lesson: 3}) and Next
// all go through set_param.
void apply_lesson_view(Params& p, int step, std::vector<std::string>& notes);
// The panel the open step highlights, or nullptr when the lesson is off.
const char* lesson_highlight(const Params& p);

}  // namespace rv
