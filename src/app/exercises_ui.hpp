// The exercises panel's actions (app/panels/exercises.cpp), for its buttons and the tests: check an exercise's typed
// answers with core, and open the view that shows why.
#pragma once
#include <string>

#include "app/state.hpp"

namespace rv {

// The answer fields and last check of an exercise (Ui::exercises, by its id).
ExerciseEntry& exercise_entry(Ui& ui, const Exercise& e);
// Checks Model::exercises[index] against its typed answers (core's check_exercise) and keeps the feedback.
void check_exercise_entry(App& app, int index);
// Applies the view that explains Model::exercises[index] (a link: its parameters and the top bar's panel); the bottom
// bar keeps the exercises in sight.
void show_exercise_view(App& app, int index);
// That view as a link query ("model=none&d_head=8&...&tab_top=rotations").
std::string exercise_view_query(const Exercise& e);

}  // namespace rv
