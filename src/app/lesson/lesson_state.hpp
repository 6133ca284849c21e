// The lesson's state in App (Ui::exercises): each exercise's typed answers and last check; data only.
#pragma once
#include <optional>
#include <string>

#include "core/lesson/exercises.hpp"

namespace rv {

// One exercise's answer fields and its last check (the exercises panel).
struct ExerciseEntry {
  char answers[kExercisePartsMax][64] = {};
  bool hint = false;
  std::optional<Feedback> feedback;
  std::string checked_prompt;  // the prompt the feedback answered: a regenerated exercise hides a stale one
};

}  // namespace rv
