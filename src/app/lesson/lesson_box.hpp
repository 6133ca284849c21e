// The guided lesson's box above the panels (its steps are app/state/lesson.hpp).
#pragma once
#include "app/state/state.hpp"

namespace rv {

// The step's box above the panels: section and title, Back / Next / Close, the text and its live line.
void show_lesson_box(App& app);
// Starts the lesson at step 1 (the controls' "Lesson" button).
void start_lesson(App& app);

}  // namespace rv
