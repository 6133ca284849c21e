// Reading a learner's typed answer: numbers as people write them ("65,536", "6.55e4", "10^-3", "−0.5"), lists and
// shapes ("1, 0.1, 0.01", "[2, 5, 4, 8]", "2×5×4×8"), and one of a few named choices ("IndexError", "works").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"

namespace rv {

// A number as typed: its value and how many significant digits were written (6.55e4: 3; 65,536: 5; 2048: 4;
// 65500: 3, trailing zeros of a whole number do not count; 0 for forms that are exact by construction: 10^-3, zero).
struct WrittenNumber {
  double value = 0.0;
  int digits = 0;
};

// Every number in `text`, in order. Separators: spaces, commas, semicolons, brackets, "x" / "×", and the words
// "and", "rad", "radians". A comma between digit groups of three is a thousands separator (65,536), any other
// comma separates (1,0.1). BadRequest naming the first part that is not a number.
Expected<std::vector<WrittenNumber>> parse_numbers(std::string_view text);

// True when `written` is `expected`: equal within float noise (1e-9 relative), or, with at least two significant
// digits written, `expected` rounded to them (0.0316 for 0.031623, 6.55e4 for 65,536).
bool reads_as(const WrittenNumber& written, double expected);
// True when `written` equals `expected` within float noise only.
bool reads_exactly(const WrittenNumber& written, double expected);

// Which choice `text` names: words[c] lists the words and phrases that name choice c ("error", "fails", ...). The
// earliest match in the text wins (so "not rotated" reads as "not"); case is ignored; a word only matches whole
// (no letter or digit on either side). nullopt when no choice is named.
std::optional<int> parse_choice(std::string_view text, const std::vector<std::vector<std::string>>& words);

}  // namespace rv
