// The exercises panel's actions (app/lesson/exercises_panel.cpp), for its buttons and the tests: check an exercise's
// typed answers with core, and open the view that shows why.
#pragma once
#include <string>
#include <vector>

#include "app/state/state.hpp"

namespace rv {

// The answer fields and last check of an exercise (Ui::exercises, by its id).
ExerciseEntry& exercise_entry(Ui& ui, const Exercise& e);
// The entry's feedback if it answered the exercise's current prompt (a regenerated exercise drops the old one), or
// null.
const Feedback* current_feedback(const ExerciseEntry& entry, const Exercise& e);
// What a check's feedback starts with: "Right.", "Not yet:" or "Cannot check:" (the panel and the page's form).
const char* verdict_heading(Verdict v);
// Checks Model::exercises[index] against its typed answers (core's check_exercise) and keeps the feedback.
void check_exercise_entry(App& app, int index);
// Types `answers` into Model::exercises[index]'s fields (each cut to the field's size, as the canvas's field would)
// and checks them; false if there is no such exercise.
bool check_exercise_answers(App& app, int index, const std::vector<std::string>& answers);
// Applies the view that explains Model::exercises[index] (a link: its parameters and the top bar's panel); the bottom
// bar keeps the exercises in sight.
void show_exercise_view(App& app, int index);
// That view as a link query ("model=none&d_head=8&...&tab_top=rotations").
std::string exercise_view_query(const Exercise& e);

}  // namespace rv
