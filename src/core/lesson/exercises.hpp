// Exercises with checked answers: the lesson's four (section 7) and three generated from the current settings. Every
// expected answer and every reason is computed by core (learned_param_count, rope_inv_freq, the IndexError, the
// shape trace, apply_rope_qkv); an answer is right, wrong with a reason, or malformed with what was expected.
#pragma once

#include <Eigen/Core>
#include <string>
#include <string_view>
#include <vector>

#include "core/lesson/shape_trace.hpp"

namespace rv {

enum class ExerciseId { Parameters, PastTable, Thetas, Shapes, FirstTurn, SlowPairs, FirstError };
inline constexpr int kExerciseCount = 7;
inline constexpr int kExercisePartsMax = 4;  // answer fields of one exercise

enum class Verdict { Right, Wrong, Malformed };
struct Feedback {
  Verdict verdict = Verdict::Malformed;
  std::string message;  // right: why; wrong: the reason (never the answer); malformed: what was expected
};

enum class AnswerKind {
  Number,   // one number
  Numbers,  // a list of numbers (theta_i)
  Shape,    // a list of whole numbers ([2, 5, 4, 8])
  Choice,   // one of a few named answers ("works", "IndexError")
};

// A known wrong answer and what it shows was misunderstood (Choice: values = {index of the choice}).
struct Mistake {
  std::vector<double> values;
  std::string reason;
};

struct ExercisePart {
  std::string label;  // "learned table", "θ₀, θ₁, θ₂, θ₃"
  AnswerKind kind = AnswerKind::Number;
  bool whole = false;                           // a count or a position: exact whole numbers only
  std::vector<double> expected;                 // Choice: the indices of the right choices (any one is right)
  std::vector<std::string> choices;             // Choice: the names ("works", "IndexError")
  std::vector<std::vector<std::string>> words;  // Choice: the words that name each choice
  std::vector<Mistake> mistakes;
  std::string low, high;  // Number: why an answer below / above the expected one is wrong
};

// What shows why: the lesson's dims (no model, base 10000) and, when set, max_position and the position m.
struct ExerciseView {
  bool lesson_dims = false;
  int max_position = 0;     // 0: keep
  long long position = -1;  // -1: keep
};

struct Exercise {
  ExerciseId id = ExerciseId::Parameters;
  std::string title;   // "Exercise 1: parameters"
  std::string prompt;  // the question
  std::string hint;
  std::string why;  // the explanation shown with a right answer, numbers from core
  std::vector<ExercisePart> parts;
  ExerciseView view;
};

// The lesson's four exercises at its dims (B=2, T=5, h=4, d_head=8, d=32, base 10000, a 2048-row table).
std::vector<Exercise> lesson_exercises();
// Exercises for the frequencies the app uses (inv_freq: base^(-2i/d_head) or a model's, 0 for pairs it leaves alone)
// and a table of max_position rows; `freqs` names them in words ("d_head = 8, base = 10000"). The first-turn exercise
// is left out when no pair rotates.
std::vector<Exercise> settings_exercises(const Eigen::VectorXd& inv_freq, int max_position, const std::string& freqs);

Feedback check_part(const ExercisePart& part, std::string_view answer);
// Every part's answer (answers[i] for parts[i]; missing ones read as empty): malformed if any part is, else wrong
// with each wrong part's reason, else right with Exercise::why.
Feedback check_exercise(const Exercise& exercise, const std::vector<std::string>& answers);

// The smallest position m >= 1 with m * theta >= 2 pi: where a pair of frequency theta > 0 completes its first turn
// (0 when theta is not positive: that pair never turns).
long long first_turn_position(double theta);
// Pairs whose wavelength 2 pi / theta_i exceeds `length` positions (a pair with theta 0 never turns: it counts).
int pairs_without_turn(const Eigen::VectorXd& inv_freq, double length);

}  // namespace rv
