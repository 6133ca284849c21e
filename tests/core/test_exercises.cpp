// Exercises: tolerant reading of typed answers, the lesson's four exercises and the generated ones, each answered
// right, wrong (with the reason) and malformed; the rotation-against-addition demo's numbers.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/lesson/add_vs_rotate.hpp"
#include "core/lesson/answers.hpp"
#include "core/lesson/exercises.hpp"
#include "core/rope/rope.hpp"

using namespace rv;

namespace {

std::vector<double> values(std::string_view text) {
  const auto got = parse_numbers(text);
  REQUIRE_MESSAGE(got.ok(), text);
  std::vector<double> out;
  for (const WrittenNumber& n : *got) out.push_back(n.value);
  return out;
}

const Exercise& lesson(ExerciseId id) {
  static const std::vector<Exercise> all = lesson_exercises();
  for (const Exercise& e : all)
    if (e.id == id) return e;
  FAIL("no exercise");
  return all[0];
}

Feedback answer(const Exercise& e, std::vector<std::string> answers) {
  return check_exercise(e, answers);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("answers: numbers as people write them") {
  CHECK(values("65,536") == std::vector<double>{65536});
  CHECK(values("1,000,000") == std::vector<double>{1e6});
  CHECK(values("6.55e4") == std::vector<double>{65500});
  CHECK(values("10^-3") == std::vector<double>{std::pow(10.0, -3)});
  CHECK(values("10^(-2)") == std::vector<double>{std::pow(10.0, -2)});
  CHECK(values("\xE2\x88\x92"
               "0.5") == std::vector<double>{-0.5});  // U+2212 minus
  CHECK(values("3 rad") == std::vector<double>{3});
  CHECK(values("zero") == std::vector<double>{0});
  CHECK(values("1, 0.1, 0.01, 0.001") == std::vector<double>{1, 0.1, 0.01, 0.001});
  CHECK(values("1,0.1,0.01,0.001") == std::vector<double>{1, 0.1, 0.01, 0.001});  // not thousands: no group of 3
  CHECK(values("65,536, 0") == std::vector<double>{65536, 0});
  CHECK(values("65536 and 0") == std::vector<double>{65536, 0});
  for (const char* shape : {"[2, 5, 4, 8]", "2x5x4x8", "2 \xC3\x97 5 \xC3\x97 4 \xC3\x97 8", "(2,5,4,8)", "2 5 4 8"})
    CHECK(values(shape) == std::vector<double>{2, 5, 4, 8});
  const auto bad = parse_numbers("12 apples");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "cannot read 'apples' as a number");
  CHECK_FALSE(parse_numbers("1.2.3e").ok());
  CHECK(parse_numbers("").ok());
}

TEST_CASE("answers: significant digits decide how close a rounded answer must be") {
  const auto digits = [](std::string_view t) { return (*parse_numbers(t))[0].digits; };
  CHECK(digits("6.55e4") == 3);
  CHECK(digits("65,536") == 5);
  CHECK(digits("65500") == 3);
  CHECK(digits("0.0010") == 2);
  CHECK(digits("10^-3") == 0);
  CHECK(reads_as((*parse_numbers("6.55e4"))[0], 65536));
  CHECK_FALSE(reads_exactly((*parse_numbers("6.55e4"))[0], 65536));
  CHECK(reads_as((*parse_numbers("0.0316"))[0], std::pow(10000.0, -3.0 / 8)));
  CHECK_FALSE(reads_as((*parse_numbers("0.03"))[0], std::pow(10000.0, -3.0 / 8)));  // one digit: exact only
  CHECK(reads_exactly((*parse_numbers("1e-3"))[0], 0.001));
}

TEST_CASE("answers: a choice is named by its words; the earliest wins") {
  const std::vector<std::vector<std::string>> words = {{"no", "not", "unchanged"}, {"yes", "rotated"}};
  CHECK(parse_choice("No", words) == 0);
  CHECK(parse_choice("it is not rotated", words) == 0);
  CHECK(parse_choice("V is rotated, yes", words) == 1);
  CHECK(parse_choice("nothing", words) == std::nullopt);  // "no" only matches whole
  CHECK(parse_choice("", words) == std::nullopt);
}

TEST_CASE("exercise 1: parameters of a 2048-row table at d = 32, and of RoPE") {
  const Exercise& e = lesson(ExerciseId::Parameters);
  REQUIRE(e.parts.size() == 2);
  CHECK(e.parts[0].expected == std::vector<double>{65536});
  CHECK(e.parts[1].expected == std::vector<double>{0});
  CHECK(answer(e, {"65,536", "0"}).verdict == Verdict::Right);
  CHECK(answer(e, {"65536", "zero"}).verdict == Verdict::Right);
  CHECK(has(answer(e, {"65536", "0"}).message, "65,536"));
  const Feedback rounded = answer(e, {"6.55e4", "0"});
  CHECK(rounded.verdict == Verdict::Wrong);
  CHECK(has(rounded.message, "rounded"));
  const Feedback narrow = answer(e, {"16384", "0"});
  CHECK(narrow.verdict == Verdict::Wrong);
  CHECK(has(narrow.message, "max_position × d_head"));
  CHECK(has(answer(e, {"65536", "4"}).message, "RoPE: those are the θᵢ"));
  const Feedback missing = answer(e, {"65536", ""});
  CHECK(missing.verdict == Verdict::Malformed);
  CHECK(has(missing.message, "RoPE: no answer yet"));
  CHECK(answer(e, {"lots", "0"}).verdict == Verdict::Malformed);
  CHECK(answer(e, {"65536.5", "0"}).verdict == Verdict::Malformed);  // a count is whole
  CHECK(e.view.lesson_dims);
  CHECK(e.view.max_position == 2048);
}

TEST_CASE("exercise 2: a 2048-row table at length 4096 raises IndexError; a RoPE model runs and degrades") {
  const Exercise& e = lesson(ExerciseId::PastTable);
  CHECK(answer(e, {"IndexError", "runs, degrades past training unless rescaled"}).verdict == Verdict::Right);
  CHECK(answer(e, {"it fails: index out of bounds", "works, but worse"}).verdict == Verdict::Right);
  CHECK(has(answer(e, {"IndexError", "fine"}).message, "for the formula, yes"));
  const Feedback wrong = answer(e, {"works", "works"});
  CHECK(wrong.verdict == Verdict::Wrong);
  CHECK(has(wrong.message, "IndexError: index 2048 is out of bounds for dimension 0 with size 2048"));
  CHECK(has(answer(e, {"IndexError", "IndexError"}).message, "no table to run out of"));
  CHECK(answer(e, {"maybe", "works"}).verdict == Verdict::Malformed);
  CHECK(has(e.why, "4,095"));
  CHECK(e.view.position == 2048);
}

TEST_CASE("exercise 3: theta_i at d_head 8 and the angle at m = 3") {
  const Exercise& e = lesson(ExerciseId::Thetas);
  CHECK(e.parts[0].expected == std::vector<double>{1, 0.1, 0.01, 0.001});
  CHECK(e.parts[1].expected == std::vector<double>{3});
  CHECK(answer(e, {"1, 0.1, 0.01, 0.001", "3"}).verdict == Verdict::Right);
  CHECK(answer(e, {"1 1e-1 1e-2 1e-3", "3.0 rad"}).verdict == Verdict::Right);
  CHECK(has(answer(e, {"0.001, 0.01, 0.1, 1", "3"}).message, "reverse order"));
  CHECK(has(answer(e, {"1, 0.1, 0.01, 0.001", "171.9"}).message, "degrees"));
  CHECK(has(answer(e, {"1, 0.1, 0.01, 0.001", "0.003"}).message, "slowest pair"));
  CHECK(has(answer(e, {"1, 0.316, 0.1, 0.0316", "3"}).message, "-2i/d_head"));
  CHECK(has(answer(e, {"1, 0.1, 0.02, 0.001", "3"}).message, "entry 3"));
  const Feedback short_list = answer(e, {"1, 0.1, 0.01", "3"});
  CHECK(short_list.verdict == Verdict::Malformed);
  CHECK(has(short_list.message, "read 3 numbers; give 4 numbers"));
  CHECK(has(e.why, "1, 0.1, 0.01, 0.001"));
  CHECK(e.view.position == 3);
}

TEST_CASE("exercise 4: Q, K and V keep [2, 5, 4, 8]; V does not change") {
  const Exercise& e = lesson(ExerciseId::Shapes);
  REQUIRE(e.parts.size() == 4);
  CHECK(e.parts[2].expected == std::vector<double>{2, 5, 4, 8});
  CHECK(answer(e, {"[2, 5, 4, 8]", "2x5x4x8", "(2,5,4,8)", "no"}).verdict == Verdict::Right);
  const Feedback flat = answer(e, {"[2, 5, 32]", "[2, 5, 4, 8]", "[2, 5, 4, 8]", "no"});
  CHECK(flat.verdict == Verdict::Wrong);
  CHECK(has(flat.message, "Q: that is the model's [B, T, d]"));
  CHECK(has(flat.message, "K: right"));
  CHECK(has(answer(e, {"[2, 5, 4, 4]", "[2, 5, 4, 8]", "[2, 5, 4, 8]", "no"}).message, "complex view"));
  CHECK(has(answer(e, {"[2, 5, 4, 8]", "[2, 5, 4, 8]", "[2, 5, 4, 8]", "yes"}).message, "V bypasses RoPE"));
  CHECK(answer(e, {"[2, 5, 4, 8]", "[2, 5, 4, 8]", "[2, 5, 4, 8]", "perhaps"}).verdict == Verdict::Malformed);
}

TEST_CASE("settings exercises: first turn, pairs that never turn, the first IndexError") {
  const Eigen::VectorXd theta = rope_inv_freq(8, 10000.0);
  const std::vector<Exercise> all = settings_exercises(theta, 10, "d_head = 8, base = 10000");
  REQUIRE(all.size() == 3);
  const Exercise& turn = all[0];
  CHECK(turn.id == ExerciseId::FirstTurn);
  CHECK(has(turn.prompt, "pair 3"));
  CHECK(turn.parts[0].expected == std::vector<double>{6284});  // 2 pi / 0.001 = 6283.19
  CHECK(check_exercise(turn, {"6284"}).verdict == Verdict::Right);
  CHECK(has(check_exercise(turn, {"6283"}).message, "just short of 2π"));
  CHECK(has(check_exercise(turn, {"100"}).message, "still below 2π"));
  CHECK(has(check_exercise(turn, {"7000"}).message, "passed 2π"));
  CHECK(check_exercise(turn, {"6283.2"}).verdict == Verdict::Malformed);
  CHECK(turn.view.position == 6284);

  const Exercise& slow = all[1];
  CHECK(slow.parts[0].expected == std::vector<double>{3});  // wavelengths 6.28 | 62.8, 628, 6283 > 10
  CHECK(check_exercise(slow, {"3"}).verdict == Verdict::Right);
  CHECK(has(check_exercise(slow, {"1"}).message, "pairs that do turn"));
  CHECK(has(slow.why, "(i ≥ 1)"));

  const Exercise& error = all[2];
  CHECK(error.parts[0].expected == std::vector<double>{10});
  CHECK(check_exercise(error, {"10"}).verdict == Verdict::Right);
  CHECK(has(check_exercise(error, {"9"}).message, "last row"));
  CHECK(has(check_exercise(error, {"12"}).message, "earlier one"));
  CHECK(has(error.why, "IndexError: index 10 is out of bounds for dimension 0 with size 10"));
}

TEST_CASE("settings exercises follow the frequencies: a partial-rotary model, no rotating pair, a huge table") {
  Eigen::VectorXd partial(4);
  partial << 1.0, 0.1, 0.0, 0.0;  // the last two pairs pass through
  const std::vector<Exercise> p = settings_exercises(partial, 10, "a model");
  CHECK(has(p[0].prompt, "pair 1"));
  CHECK(p[0].parts[0].expected == std::vector<double>{63});
  CHECK(p[1].parts[0].expected == std::vector<double>{3});
  const std::vector<Exercise> none = settings_exercises(Eigen::VectorXd::Zero(2), 1000000000, "nothing");
  REQUIRE(none.size() == 2);
  CHECK(none[1].parts[0].expected == std::vector<double>{1e9});
  CHECK(first_turn_position(1.0) == 7);
  CHECK(first_turn_position(kTwoPi) == 1);
  CHECK(first_turn_position(0.001) == 6284);
  CHECK(pairs_without_turn(rope_inv_freq(8, 10000.0), 6283.0) == 1);
}

TEST_CASE("add vs rotate: rotation keeps the norm and the score's dependence on m - n only; addition does neither") {
  Eigen::VectorXd q(8), k(8);
  q << 0.5, -1.2, 0.3, 0.8, -0.4, 1.1, 0.2, -0.7;
  k << -0.3, 0.9, 1.4, -0.2, 0.6, 0.1, -1.0, 0.5;
  const Eigen::VectorXd theta = rope_inv_freq(8, 10000.0);
  const AddVsRotate r = add_vs_rotate(q, k, 100, 97, 1000, theta, Pairing::Interleaved, 10000.0);
  CHECK(r.norm_rotated == doctest::Approx(r.norm_q).epsilon(1e-12));
  CHECK(std::fabs(r.norm_added - r.norm_q) > 0.1);
  CHECK(r.dot_rotated_shifted == doctest::Approx(r.dot_rotated).epsilon(1e-9));
  CHECK(std::fabs(r.dot_added_shifted - r.dot_added) > 1e-3);
  CHECK(r.rotated_pair.norm() == doctest::Approx(r.q_pair.norm()));
  CHECK(r.dot_plain == doctest::Approx(q.dot(k)));
}

TEST_CASE("answers: any text reads as numbers or a clear error, never a crash or a non-finite number") {
  const std::string alphabet = "0123456789.,;-+eE^()[]x ab\xC3\x97\xE2\x88\x92";
  std::uint64_t state = 12345;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string text;
    const int length = int(state % 24);
    for (int i = 0; i < length; ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      text += alphabet[(state >> 33) % alphabet.size()];
    }
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto got = parse_numbers(text);
    if (!got) {
      CHECK(got.error().type == "BadRequest");
      continue;
    }
    for (const WrittenNumber& n : *got) REQUIRE_MESSAGE(std::isfinite(n.value), text);
  }
  CHECK(first_turn_position(0.0) == 0);
  CHECK(first_turn_position(-1.0) == 0);
}
