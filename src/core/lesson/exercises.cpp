// Checking an exercise's answers (right / wrong with a reason / malformed), and the exercises generated from the
// current settings: a pair's first turn, the pairs that never turn inside the table, the first IndexError.
#include "core/lesson/exercises.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/encodings/learned.hpp"
#include "core/lesson/answers.hpp"
#include "core/lesson/exercises_internal.hpp"
#include "core/rope/rope.hpp"

namespace rv {

// [SECTION] wording

namespace exercise_text {

std::string count(long long n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

std::string sig(double v, int significant) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return count((long long)v);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  return buf;
}

std::string list(const std::vector<double>& v) {
  std::string out;
  for (double x : v) out += (out.empty() ? "" : ", ") + sig(x);
  return out;
}

std::string sub(int i) {
  static const char* const digits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
  const std::string d = std::to_string(i);
  std::string out;
  for (char c : d) out += digits[c - '0'];
  return out;
}

}  // namespace exercise_text

namespace {

namespace text = exercise_text;

// [SECTION] checking one part

std::string expected_form(const ExercisePart& part) {
  switch (part.kind) {
    case AnswerKind::Number:
      return part.whole ? "give one whole number" : "give one number";
    case AnswerKind::Numbers:
      return "give " + std::to_string(part.expected.size()) + " numbers separated by commas";
    case AnswerKind::Shape:
      return "give the sizes in brackets, e.g. [3, 7]";
    case AnswerKind::Choice:
      break;
  }
  std::string names;
  for (std::size_t c = 0; c < part.choices.size(); ++c)
    names += (c == 0 ? "" : c + 1 == part.choices.size() ? " or " : ", ") + part.choices[c];
  return "answer " + names;
}

// Every written number matches `values` (exactly for whole parts, else to the digits written).
bool matches(const ExercisePart& part, const std::vector<WrittenNumber>& got, const std::vector<double>& values) {
  if (got.size() != values.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (part.whole ? !reads_exactly(got[i], values[i]) : !reads_as(got[i], values[i])) return false;
  return true;
}

Feedback check_choice(const ExercisePart& part, std::string_view answer) {
  const std::optional<int> c = parse_choice(answer, part.words);
  if (!c) return {Verdict::Malformed, expected_form(part)};
  for (double right : part.expected)
    if (double(*c) == right) return {Verdict::Right, "right"};
  for (const Mistake& m : part.mistakes)
    if (m.values.size() == 1 && m.values[0] == double(*c)) return {Verdict::Wrong, m.reason};
  return {Verdict::Wrong, "not " + part.choices[size_t(*c)]};
}

// A wrong list: the first entry that is off, with its reason when the part has one (low holds it per entry).
Feedback wrong_numbers(const ExercisePart& part, const std::vector<WrittenNumber>& got) {
  if (part.kind == AnswerKind::Number) {
    const bool below = got[0].value < part.expected[0];
    return {Verdict::Wrong, below ? part.low : part.high};
  }
  if (part.kind == AnswerKind::Shape || got.size() != part.expected.size()) return {Verdict::Wrong, part.low};
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!reads_as(got[i], part.expected[i]))
      return {Verdict::Wrong,
              "entry " + std::to_string(i + 1) + " (" + text::sig(got[i].value) + ") is off; " + part.low};
  return {Verdict::Wrong, part.low};
}

Feedback check_numbers(const ExercisePart& part, const std::vector<WrittenNumber>& got) {
  const std::size_t n = part.expected.size();
  if (got.empty()) return {Verdict::Malformed, expected_form(part)};
  if (part.kind != AnswerKind::Shape && got.size() != n)
    return {Verdict::Malformed, "read " + std::to_string(got.size()) + (got.size() == 1 ? " number; " : " numbers; ") +
                                    expected_form(part)};
  for (const WrittenNumber& w : got)
    if (part.whole && w.value != std::floor(w.value))
      return {Verdict::Malformed, text::sig(w.value) + " is not a whole number; " + expected_form(part)};
  if (matches(part, got, part.expected)) return {Verdict::Right, "right"};
  for (const Mistake& m : part.mistakes)
    if (matches(part, got, m.values)) return {Verdict::Wrong, m.reason};
  bool rounded = part.whole && got.size() == n;
  for (std::size_t i = 0; rounded && i < n; ++i) rounded = reads_as(got[i], part.expected[i]);
  if (rounded) return {Verdict::Wrong, "right size, but rounded: this one is exact, give every digit"};
  return wrong_numbers(part, got);
}

bool blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// [SECTION] the settings' exercises

std::optional<Exercise> first_turn(const Eigen::VectorXd& inv_freq, const std::string& freqs) {
  int i = std::min(3, int(inv_freq.size()) - 1);
  while (i >= 0 && !(inv_freq[i] > 0.0)) --i;
  if (i < 0) return std::nullopt;
  const double theta = inv_freq[i];
  const long long m = first_turn_position(theta);
  const std::string ti = "θ" + text::sub(i);
  const double before = rope_angles(double(m - 1), inv_freq)[i], at = rope_angles(double(m), inv_freq)[i];
  Exercise e;
  e.id = ExerciseId::FirstTurn;
  e.title = "First turn of pair " + std::to_string(i);
  e.prompt = "With " + freqs + ", pair " + std::to_string(i) + " turns by " + ti + " = " + text::sig(theta) +
             " rad per position. At which position m does it complete its first full turn (m·" + ti +
             " ≥ 2π for the first time)?";
  e.hint = "A full turn is 2π rad and the angle at m is m·" + ti + ": solve m·" + ti + " ≥ 2π and round up.";
  e.why = "The wavelength 2π/" + ti + " is " + text::sig(kTwoPi / theta, 8) + " positions, so the first whole one " +
          "past it is m = " + text::count(m) + ": m·" + ti + " = " + text::sig(at, 8) + " rad ≥ 2π; at m − 1 it was " +
          text::sig(before, 8) + " rad < 2π = " + text::sig(kTwoPi, 8) + ".";
  ExercisePart part{"m", AnswerKind::Number, true, {double(m)}, {}, {}, {}, "", ""};
  part.mistakes.push_back(
      {{double(m - 1)},
       "at m = " + text::count(m - 1) + " the angle is " + text::sig(before, 8) + " rad, just short of 2π"});
  part.low = "at that position the angle m·" + ti + " is still below 2π = " + text::sig(kTwoPi, 7) + " rad";
  part.high = "the angle had passed 2π before that position";
  e.parts.push_back(part);
  e.view.position = m;
  return e;
}

Exercise slow_pairs(const Eigen::VectorXd& inv_freq, int max_position, const std::string& freqs) {
  const int half = int(inv_freq.size());
  const int n = pairs_without_turn(inv_freq, double(max_position));
  Exercise e;
  e.id = ExerciseId::SlowPairs;
  e.title = "Pairs that never turn";
  e.prompt = "With " + freqs + " and a table of max_position = " + text::count(max_position) +
             " rows, how many of the " + std::to_string(half) +
             " pairs have a wavelength 2π/θᵢ longer than the table, so they never complete a " + "turn inside it?";
  e.hint = "Pair i turns once every 2π/θᵢ positions; θᵢ shrinks as i grows, so the slow pairs are the last ones.";
  const bool suffix = n > 0 && pairs_without_turn(inv_freq.tail(n), double(max_position)) == n;  // the last n pairs
  e.why = text::count(n) + " of " + std::to_string(half) + " pairs" +
          (suffix ? " (i ≥ " + std::to_string(half - n) + ")" : "") + " have 2π/θᵢ > " + text::count(max_position) +
          ": inside the table their angles never wrap, so a model trained on this " +
          "length has never seen them past one turn.";
  ExercisePart part{"pairs", AnswerKind::Number, true, {double(n)}, {}, {}, {}, "", ""};
  if (half - n != n)
    part.mistakes.push_back({{double(half - n)}, "that counts the pairs that do turn inside the table"});
  part.low = "too few: compare every pair's wavelength 2π/θᵢ with max_position";
  part.high = "too many: some of those pairs turn at least once inside the table";
  e.parts.push_back(part);
  return e;
}

Exercise first_error(int max_position) {
  long long lo = 0, hi = max_position;  // the first failing lookup, found through core's bounds check
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if (learned_lookup_seeded(max_position, 1, 0, mid).ok())
      lo = mid + 1;
    else
      hi = mid;
  }
  const Expected<Eigen::RowVectorXd> fails = learned_lookup_seeded(max_position, 1, 0, lo);
  Exercise e;
  e.id = ExerciseId::FirstError;
  e.title = "The first IndexError";
  e.prompt = "The learned table has max_position = " + text::count(max_position) +
             " rows. What is the first position m whose lookup P[m] raises IndexError?";
  e.hint = "Rows are numbered from 0, as Python counts.";
  e.why = "Rows are 0 .. " + text::count(lo - 1) + ". P[" + text::count(lo) + "] raises " +
          (fails ? std::string("nothing") : fails.error().full()) + ".";
  ExercisePart part{"m", AnswerKind::Number, true, {double(lo)}, {}, {}, {}, "", ""};
  if (lo > 0)
    part.mistakes.push_back({{double(lo - 1)}, "P[" + text::count(lo - 1) + "] is the last row: rows count from 0"});
  part.low = "that row exists: the table serves every position below max_position";
  part.high = "that lookup fails, but an earlier one already does";
  e.parts.push_back(part);
  e.view.position = lo;
  return e;
}

}  // namespace

// [SECTION] public

Feedback check_part(const ExercisePart& part, std::string_view answer) {
  if (blank(answer)) return {Verdict::Malformed, "no answer yet; " + expected_form(part)};
  if (part.kind == AnswerKind::Choice) return check_choice(part, answer);
  const Expected<std::vector<WrittenNumber>> got = parse_numbers(answer);
  if (!got) return {Verdict::Malformed, got.error().message + "; " + expected_form(part)};
  return check_numbers(part, *got);
}

Feedback check_exercise(const Exercise& exercise, const std::vector<std::string>& answers) {
  std::vector<Feedback> each;
  for (std::size_t i = 0; i < exercise.parts.size(); ++i)
    each.push_back(check_part(exercise.parts[i], i < answers.size() ? answers[i] : std::string()));
  const auto worst = std::max_element(
      each.begin(), each.end(), [](const Feedback& a, const Feedback& b) { return int(a.verdict) < int(b.verdict); });
  if (worst == each.end() || worst->verdict == Verdict::Right) return {Verdict::Right, exercise.why};
  const bool many = exercise.parts.size() > 1;
  std::string message;
  for (std::size_t i = 0; i < each.size(); ++i) {
    if (worst->verdict == Verdict::Malformed && each[i].verdict != Verdict::Malformed) continue;
    // one sentence per part, so a reader (or a screen reader) never runs two parts together
    std::string part = (many ? exercise.parts[i].label + ": " : std::string()) + each[i].message;
    if (!part.empty() && part.back() != '.' && part.back() != '?' && part.back() != '!') part += '.';
    message += (message.empty() ? "" : "\n") + part;
  }
  return {worst->verdict, message};
}

std::vector<Exercise> settings_exercises(const Eigen::VectorXd& inv_freq, int max_position, const std::string& freqs) {
  std::vector<Exercise> out;
  if (std::optional<Exercise> e = first_turn(inv_freq, freqs)) out.push_back(std::move(*e));
  out.push_back(slow_pairs(inv_freq, max_position, freqs));
  out.push_back(first_error(max_position));
  return out;
}

long long first_turn_position(double theta) {
  if (!(theta > 0.0)) return 0;  // a pair that does not rotate never turns
  const double guess = std::ceil(kTwoPi / theta);
  long long m = guess < 9e18 ? std::max(1LL, (long long)guess) : 9000000000000000000LL;
  while (m > 1 && double(m - 1) * theta >= kTwoPi) --m;
  while (m < 9000000000000000000LL && double(m) * theta < kTwoPi) ++m;
  return m;
}

int pairs_without_turn(const Eigen::VectorXd& inv_freq, double length) {
  int n = 0;
  for (Eigen::Index i = 0; i < inv_freq.size(); ++i) n += !(inv_freq[i] > 0.0) || kTwoPi / inv_freq[i] > length;
  return n;
}

}  // namespace rv
