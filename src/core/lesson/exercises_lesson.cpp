// The lesson's four exercises (section 7), with every expected answer, reason and explanation computed by core at the
// lesson's dims: parameter counts, the IndexError at 4096 tokens, theta_i and the angle at m = 3, shapes after RoPE.
#include <array>
#include <string>
#include <vector>

#include "core/base/format.hpp"
#include "core/encodings/learned.hpp"
#include "core/lesson/exercises.hpp"
#include "core/lesson/exercises_internal.hpp"
#include "core/lesson/verify.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/rope_tensor.hpp"

namespace rv {
namespace {

namespace text = exercise_text;

constexpr long long kAnglePosition = 3;  // exercise 3 asks for the angle at m = 3

std::string dims_words(const Dims& d) {
  return "B=" + std::to_string(d.B) + ", T=" + std::to_string(d.T) + ", h=" + std::to_string(d.h) +
         ", d_head=" + std::to_string(d.d_head) + ", d=" + std::to_string(d.d());
}

ExercisePart count_part(std::string label, long long expected) {
  return {std::move(label), AnswerKind::Number, true, {double(expected)}, {}, {}, {}, "", ""};
}

Exercise parameters() {
  const VerifyConfig cfg;
  const Dims d = cfg.dims;
  const int rows = cfg.exercise_max_position;
  const long long learned = learned_param_count(rows, d.d());
  const long long rope = param_counts(Dims{d.B, d.T, d.h, d.d_head, d.V, rows}).rope;
  Exercise e;
  e.id = ExerciseId::Parameters;
  e.title = "Exercise 1: parameters";
  e.prompt = "Given " + dims_words(d) + ": how many parameters does a learned absolute position table have if " +
             "max_position = " + text::count(rows) + "? How many does RoPE add?";
  e.hint = "Learned: max_position × d = " + text::count(rows) + " × " + std::to_string(d.d()) +
           ". RoPE: zero parameters (fixed formula).";
  e.why = "P is [" + text::count(rows) + ", " + std::to_string(d.d()) + "]: " + text::count(learned) +
          " learned numbers, one row of width d per position. RoPE adds " + text::count(rope) +
          ": θᵢ = base^(-2i/d_head) is a formula, nothing is learned.";
  ExercisePart table = count_part("learned table", learned);
  table.mistakes.push_back({{double(learned_param_count(rows, d.d_head))},
                            "that is max_position × d_head: the table is as wide as the model, d = h × d_head"});
  table.mistakes.push_back({{double(learned * d.B)}, "the table does not grow with the batch: one row per position"});
  table.low = "too few: each of the max_position rows holds d numbers";
  table.high = "too many: P is [max_position, d] and nothing more";
  ExercisePart formula = count_part("RoPE", rope);
  formula.mistakes.push_back({{double(learned)}, "that is the learned table's count: RoPE has no table"});
  formula.mistakes.push_back({{double(d.d_head / 2)}, "those are the θᵢ: fixed by a formula, not learned"});
  formula.low = "a count is never negative";
  formula.high = "RoPE learns nothing: θᵢ = base^(-2i/d_head) is fixed";
  e.parts = {table, formula};
  e.view = {true, rows, -1};
  return e;
}

ExercisePart works_or_fails(std::string label, bool works) {
  ExercisePart p{
      std::move(label), AnswerKind::Choice, false, {works ? 0.0 : 1.0}, {"works", "IndexError"}, {}, {}, "", ""};
  p.words = {{"works", "work", "ok", "okay", "fine", "succeeds", "runs", "defined", "handles"},
             {"indexerror", "index error", "error", "fails", "fail", "crash", "crashes", "raises", "out of bounds",
              "out of range", "breaks"}};
  return p;
}

Exercise past_table() {
  const VerifyConfig cfg;
  const Dims d = cfg.dims;
  const int rows = cfg.exercise_max_position;
  const long long length = 2LL * rows, last = length - 1;
  const Expected<Eigen::RowVectorXd> first_missing = learned_lookup_seeded(rows, d.d(), cfg.seed, rows);
  const Expected<Eigen::RowVectorXd> at_last = learned_lookup_seeded(rows, d.d(), cfg.seed, last);
  const Eigen::VectorXd theta = rope_inv_freq(d.d_head, cfg.base);
  const Eigen::VectorXd angles = rope_angles(double(last), theta);
  const Eigen::VectorXd x = Eigen::VectorXd::Ones(d.d_head);
  const bool learned_works = first_missing.ok() && at_last.ok();
  const bool rope_works = angles.allFinite() && apply_rope(x, double(last), theta, Pairing::Interleaved).allFinite();
  const std::string error = first_missing ? std::string("no error") : first_missing.error().full();
  Exercise e;
  e.id = ExerciseId::PastTable;
  e.title = "Exercise 2: past the table";
  e.prompt = "A model is trained with max_position = " + text::count(rows) + " but must process a sequence of length " +
             text::count(length) + " at inference. What happens with learned absolute positions? With RoPE?";
  e.hint = "Learned absolute: a table lookup at a position ≥ max_position raises IndexError. RoPE: the angle formula " +
           std::string(
               "is defined at any position; whether a model trained on fewer positions is still good there is "
               "another question.");
  e.why = "The sequence needs positions 0 .. " + text::count(last) + "; P has " + text::count(rows) +
          " rows, and the first position without one raises " + error +
          ". RoPE computes m·θᵢ at any m: at m = " + text::count(last) + " the angles are " +
          text::list(std::vector<double>(angles.data(), angles.data() + angles.size())) +
          " rad, so nothing raises: the formula is defined. The model is another matter: trained on " +
          text::count(rows) + " positions, it runs past them but loses quality unless its frequencies are rescaled "
          "(linear, NTK, YaRN, Llama 3) or it is fine-tuned longer (Press et al. 2022; Chen et al. 2023). The Run it "
          "panel measures it on a model trained at 512 positions, and the Lab on its own tiny models.";
  ExercisePart learned = works_or_fails("learned absolute", learned_works);
  learned.mistakes.push_back({{0.0}, "P has rows 0 .. " + text::count(rows - 1) + " only: " + error});
  // RoPE: the trained model runs past its training length and degrades there unless rescaled; "works" is the
  // formula's answer only, "IndexError" the table's.
  ExercisePart rope{"RoPE", AnswerKind::Choice, false, {rope_works ? 2.0 : 1.0},
                    {"works", "IndexError", "runs, degrades past training unless rescaled"}, {}, {}, "", ""};
  rope.words = {{"works", "work", "ok", "okay", "fine", "succeeds", "runs", "defined", "handles"},
                {"indexerror", "index error", "error", "fails", "fail", "crash", "crashes", "raises", "out of bounds",
                 "out of range"},
                {"degrades", "degrade", "degrading", "worse", "extrapolates poorly", "quality drops", "loses quality",
                 "breaks down", "break down", "works but", "works, but", "runs but", "runs, but", "runs, degrades",
                 "works, degrades", "rescaled",
                 "unless scaled", "perplexity", "loss rises"}};
  rope.mistakes.push_back({{0.0},
                           "for the formula, yes: m·θ₀ = " + text::sig(angles[0]) + " rad at m = " +
                               text::count(last) + ". But a model trained on " + text::count(rows) +
                               " positions loses quality past them unless its frequencies are rescaled"});
  rope.mistakes.push_back({{1.0},
                           "RoPE has no table to run out of: the angle " + text::count(last) + "·θ₀ = " +
                               text::sig(angles[0]) + " rad is computed like any other. What goes past " +
                               text::count(rows) + " positions is the model's quality, unless it is rescaled"});
  e.parts = {learned, rope};
  e.view = {true, rows, rows};
  return e;
}

Exercise thetas() {
  const VerifyConfig cfg;
  const int dh = cfg.dims.d_head;
  const Eigen::VectorXd theta = rope_inv_freq(dh, cfg.base);
  const std::vector<double> expected(theta.data(), theta.data() + theta.size());
  const double angle = rope_angles(double(kAnglePosition), theta)[0];
  const double slowest = rope_angles(double(kAnglePosition), theta)[theta.size() - 1];
  const std::string b = format_number(cfg.base), m = std::to_string(kAnglePosition);
  Exercise e;
  e.id = ExerciseId::Thetas;
  e.title = "Exercise 3: frequencies and an angle";
  e.prompt = "For d_head = " + std::to_string(dh) + ", what are the " + std::to_string(theta.size()) +
             " θᵢ values? What is the rotation angle at position m = " + m + " for the first dimension pair?";
  e.hint = "θᵢ = " + b + "^(-2i/" + std::to_string(dh) + ") for i = 0 .. " + std::to_string(theta.size() - 1) +
           ". First pair: angle = m × θ₀.";
  e.why = "θᵢ = " + b + "^(-2i/" + std::to_string(dh) + ") = " + text::list(expected) + ". At m = " + m +
          " the first pair turns m·θ₀ = " + text::sig(angle) + " rad; the slowest only " + text::sig(slowest) + " rad.";
  ExercisePart list{
      "θ₀ .. θ" + text::sub(int(theta.size()) - 1), AnswerKind::Numbers, false, expected, {}, {}, {}, "", ""};
  list.mistakes.push_back({std::vector<double>(expected.rbegin(), expected.rend()),
                           "the right values in reverse order: θ₀ is the fastest"});
  const Eigen::VectorXd half_exponent =
      rope_inv_freq(2 * dh, cfg.base);  // base^(-i/d_head): the exponent's 2 forgotten
  list.mistakes.push_back({std::vector<double>(half_exponent.data(), half_exponent.data() + theta.size()),
                           "those are " + b + "^(-i/d_head): the exponent is -2i/d_head"});
  list.low = "θᵢ = " + b + "^(-2i/d_head), with i counted from 0";
  ExercisePart first{"angle at m = " + m + " (rad)", AnswerKind::Number, false, {angle}, {}, {}, {}, "", ""};
  first.mistakes.push_back({{slowest}, "that is the slowest pair; the first pair is i = 0, with θ₀"});
  first.mistakes.push_back({{angle * 180.0 / (kTwoPi / 2)}, "that is in degrees; RoPE's angles are radians"});
  first.low = "too small: the angle is m × θ₀";
  first.high = "too large: the angle is m × θ₀";
  e.parts = {list, first};
  e.view = {true, 0, kAnglePosition};
  return e;
}

ExercisePart shape_part(std::string label, const std::array<long long, 4>& shape, const std::vector<ShapeStep>& trace) {
  ExercisePart p{
      std::move(label), AnswerKind::Shape, true, std::vector<double>(shape.begin(), shape.end()), {}, {}, {}, "", ""};
  for (const ShapeStep& s : trace) {
    const std::vector<double> values(s.shape.begin(), s.shape.end());
    if (s.name == "E[token_ids]")
      p.mistakes.push_back(
          {values, "that is the model's [B, T, d]: inside attention it is viewed as h heads of d_head"});
    if (s.name == "view_as_complex(Q)")
      p.mistakes.push_back({values, "that is the complex view; view_as_real(...).flatten(3) restores d_head"});
    if (s.name == "freqs_cis") p.mistakes.push_back({values, "that is freqs_cis, the rotations, not the tensor"});
  }
  p.low = "not this shape: follow the tensor through the shape trace";
  return p;
}

Exercise shapes() {
  const VerifyConfig cfg;
  const Dims d = cfg.dims;
  const std::array<long long, 4> dims{d.B, d.T, d.h, d.d_head};
  Qkv in{Tensor4d(dims), Tensor4d(dims), Tensor4d(dims)};
  NormalRng rng(cfg.seed);
  for (Tensor4d* t : {&in.q, &in.k, &in.v})
    for (double& x : t->data) x = rng.normal();
  std::vector<double> positions;
  for (int t = 0; t < d.T; ++t) positions.push_back(t);
  const Qkv out = apply_rope_qkv(in, positions, rope_inv_freq(d.d_head, cfg.base), Pairing::Interleaved);
  const bool v_changed = out.v.data != in.v.data || out.v.shape != in.v.shape;
  const std::vector<ShapeStep> trace = shape_trace(d);
  const auto str = [](const std::array<long long, 4>& s) {
    return shape_str(std::vector<long long>(s.begin(), s.end()));
  };
  Exercise e;
  e.id = ExerciseId::Shapes;
  e.title = "Exercise 4: shapes after RoPE";
  e.prompt = "With " + dims_words(d) + ", after applying RoPE, what are the shapes of Q, K and V? Does V change?";
  e.hint = "RoPE is applied to Q and K only. V is not rotated.";
  e.why = "Q_rope " + str(out.q.shape) + " and K_rope " + str(out.k.shape) +
          ": a rotation maps each pair to a pair, so shapes are kept. V " + str(out.v.shape) +
          (v_changed ? " changes."
                     : " is untouched, every value: RoPE rotates Q and K only; values carry content, not position.");
  ExercisePart v_changes{
      "does V change?", AnswerKind::Choice, false, {v_changed ? 1.0 : 0.0}, {"no", "yes"}, {}, {}, "", ""};
  v_changes.words = {{"no", "not", "unchanged", "doesn't", "does not", "nope", "stays", "same", "untouched", "false"},
                     {"yes", "changes", "changed", "rotated", "yep", "true", "it does"}};
  v_changes.mistakes.push_back({{v_changed ? 0.0 : 1.0}, "V bypasses RoPE: values carry content, not position"});
  e.parts = {shape_part("Q", out.q.shape, trace), shape_part("K", out.k.shape, trace),
             shape_part("V", out.v.shape, trace), v_changes};
  e.view = {true, 0, -1};
  return e;
}

}  // namespace

std::vector<Exercise> lesson_exercises() {
  return {parameters(), past_table(), thetas(), shapes()};
}

}  // namespace rv
