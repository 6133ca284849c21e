// Tolerant reading of typed answers: numbers with thousands commas, exponents and powers, lists, shapes, choices.
#include "core/lesson/answers.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace rv {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
// U+2212 (minus sign) and U+00D7 (multiplication sign), as UTF-8.
constexpr std::string_view kUnicodeMinus = "\xE2\x88\x92";
constexpr std::string_view kUnicodeTimes = "\xC3\x97";

std::string shown(std::string_view s) {
  return "'" + std::string(s.substr(0, 24)) + (s.size() > 24 ? "...'" : "'");
}

// Significant digits of a mantissa written as `m` (digits and at most one '.', no sign, no commas).
int significant_digits(const std::string& m) {
  const bool has_point = m.find('.') != std::string::npos;
  std::string d;
  for (char c : m)
    if (is_digit(c)) d += c;
  const std::size_t first = d.find_first_not_of('0');
  if (first == std::string::npos) return 0;  // zero is exact
  std::size_t last = d.size();
  if (!has_point) last = d.find_last_not_of('0') + 1;
  return int(last - first);
}

struct Reader {
  std::string_view s;
  std::size_t i = 0;

  bool at(std::string_view word) const { return s.substr(i, word.size()) == word; }
  bool digit_at(std::size_t k) const { return k < s.size() && is_digit(s[k]); }
  // "," followed by exactly three digits and then no digit: a thousands separator.
  bool thousands_at(std::size_t k) const {
    return k < s.size() && s[k] == ',' && digit_at(k + 1) && digit_at(k + 2) && digit_at(k + 3) && !digit_at(k + 4);
  }
  bool number_starts() const {
    std::size_t k = i;
    if (at(kUnicodeMinus))
      k += kUnicodeMinus.size();
    else if (s[k] == '-' || s[k] == '+')
      k += 1;
    return digit_at(k) || (k < s.size() && s[k] == '.' && digit_at(k + 1));
  }
  // A signed decimal with optional thousands commas and exponent; its mantissa goes to `mantissa`.
  double read_decimal(std::string& mantissa) {
    std::string text;
    if (at(kUnicodeMinus))
      text += '-', i += kUnicodeMinus.size();
    else if (s[i] == '-' || s[i] == '+')
      text += s[i++];
    const std::size_t group_start = i;
    while (digit_at(i)) mantissa += s[i++];
    if (i - group_start <= 3)
      while (thousands_at(i)) mantissa += s.substr(i + 1, 3), i += 4;
    if (i < s.size() && s[i] == '.' && digit_at(i + 1)) {
      mantissa += s[i++];
      while (digit_at(i)) mantissa += s[i++];
    }
    text += mantissa;
    const bool sign_next = i + 1 < s.size() && (s[i + 1] == '-' || s[i + 1] == '+');
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E') && (digit_at(i + 1) || (sign_next && digit_at(i + 2)))) {
      text += s[i++];
      if (s[i] == '-' || s[i] == '+') text += s[i++];
      while (digit_at(i)) text += s[i++];
    }
    return std::strtod(text.c_str(), nullptr);
  }
  // A number, with an optional power: 10^-3, 10^(-3).
  std::optional<WrittenNumber> read_number() {
    std::string mantissa;
    WrittenNumber n{read_decimal(mantissa), significant_digits(mantissa)};
    if (i >= s.size() || s[i] != '^') return n;
    ++i;
    const bool paren = i < s.size() && s[i] == '(';
    if (paren) ++i;
    if (i >= s.size() || !number_starts()) return std::nullopt;
    std::string power_digits;
    const double power = read_decimal(power_digits);
    if (paren && (i >= s.size() || s[i++] != ')')) return std::nullopt;
    return WrittenNumber{std::pow(n.value, power), 0};
  }
};

bool separator(Reader& r) {
  for (std::string_view sep : {kUnicodeTimes, std::string_view(" "), std::string_view(","), std::string_view(";"),
                               std::string_view("["), std::string_view("]"), std::string_view("("),
                               std::string_view(")"), std::string_view("\t"), std::string_view("=")})
    if (r.at(sep)) {
      r.i += sep.size();
      return true;
    }
  return false;
}

}  // namespace

Expected<std::vector<WrittenNumber>> parse_numbers(std::string_view text) {
  Reader r{text};
  std::vector<WrittenNumber> out;
  while (r.i < text.size()) {
    if (separator(r)) continue;
    if (r.number_starts()) {
      const std::size_t start = r.i;
      const auto n = r.read_number();
      if (!n || !std::isfinite(n->value))
        return bad_request("cannot read " + shown(text.substr(start)) + " as a number");
      out.push_back(*n);
      continue;
    }
    if (is_alpha(text[r.i])) {
      const std::size_t start = r.i;
      while (r.i < text.size() && is_alpha(text[r.i])) ++r.i;
      std::string word(text.substr(start, r.i - start));
      for (char& c : word) c = char(std::tolower(static_cast<unsigned char>(c)));
      if (word == "zero")
        out.push_back({0.0, 0});
      else if (word != "x" && word != "and" && word != "rad" && word != "radians")
        return bad_request("cannot read " + shown(text.substr(start)) + " as a number");
      continue;
    }
    return bad_request("cannot read " + shown(text.substr(r.i)) + " as a number");
  }
  return out;
}

bool reads_exactly(const WrittenNumber& written, double expected) {
  return std::fabs(written.value - expected) <= 1e-9 * std::fabs(expected) || written.value == expected;
}

bool reads_as(const WrittenNumber& written, double expected) {
  if (reads_exactly(written, expected)) return true;
  if (written.digits < 2 || written.value == 0.0) return false;
  const double unit = std::pow(10.0, std::floor(std::log10(std::fabs(written.value))) - written.digits + 1);
  return std::fabs(written.value - expected) <= 0.5 * unit * (1 + 1e-9);
}

std::optional<int> parse_choice(std::string_view text, const std::vector<std::vector<std::string>>& words) {
  std::string lower(text);
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  const auto boundary = [&](std::size_t k) { return k >= lower.size() || !(is_alpha(lower[k]) || is_digit(lower[k])); };
  std::optional<int> best;
  std::size_t best_at = std::string::npos, best_len = 0;
  for (std::size_t c = 0; c < words.size(); ++c)
    for (const std::string& w : words[c])
      for (std::size_t at = lower.find(w); at != std::string::npos; at = lower.find(w, at + 1)) {
        if ((at > 0 && !boundary(at - 1)) || !boundary(at + w.size())) continue;
        if (at < best_at || (at == best_at && w.size() > best_len)) best = int(c), best_at = at, best_len = w.size();
        break;
      }
  return best;
}

}  // namespace rv
