// Code points for the tokenizer: UTF-8 in (invalid bytes become U+FFFD as the WHATWG decoder, JS's TextDecoder,
// replaces them) and out, general categories and White_Space from the generated Unicode tables.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rv::unicode {

// The general categories, in gen_unicode_tables.py's order (Cn, unassigned, is 0).
enum class Category : unsigned char {
  Cn,
  Lu,
  Ll,
  Lt,
  Lm,
  Lo,
  Mn,
  Mc,
  Me,
  Nd,
  Nl,
  No,
  Pc,
  Pd,
  Ps,
  Pe,
  Pi,
  Pf,
  Po,
  Sm,
  Sc,
  Sk,
  So,
  Zs,
  Zl,
  Zp,
  Cc,
  Cf,
  Cs,
  Co
};
constexpr int kCategoryCount = 30;
constexpr std::uint32_t bit(Category c) {
  return std::uint32_t(1) << static_cast<int>(c);
}
constexpr std::uint32_t kLetters =
    bit(Category::Lu) | bit(Category::Ll) | bit(Category::Lt) | bit(Category::Lm) | bit(Category::Lo);
constexpr std::uint32_t kNumbers = bit(Category::Nd) | bit(Category::Nl) | bit(Category::No);

const char* version();  // of the Unicode Character Database the tables came from, "15.0.0"
Category category(char32_t c);
inline bool in(char32_t c, std::uint32_t categories) {
  return (bit(category(c)) & categories) != 0;
}
bool is_white_space(char32_t c);  // the White_Space property: what Hugging Face's regexes mean by \s
// JavaScript's \s and String.prototype.trim: White_Space without U+0085, with U+FEFF.
inline bool is_js_space(char32_t c) {
  return c == 0xFEFF || (c != 0x85 && is_white_space(c));
}
int combining_class(char32_t c);

// UTF-8 -> code points; each maximal invalid subsequence becomes one U+FFFD (WHATWG's decoder, Python's "replace").
std::u32string decode_utf8(std::string_view bytes);
std::string encode_utf8(std::u32string_view text);  // core/base/utf8.hpp's append_utf8 for each

}  // namespace rv::unicode
