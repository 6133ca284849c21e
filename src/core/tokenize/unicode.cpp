// Code points: the UTF-8 codec and the property look-ups over the generated tables (unicode.hpp).
#include "core/tokenize/unicode.hpp"

#include <algorithm>
#include <iterator>

#include "core/base/utf8.hpp"
#include "core/tokenize/unicode_tables.hpp"

namespace rv::unicode {
namespace ut = unicode_tables;

const char* version() {
  return ut::kVersion;
}

Category category(char32_t c) {
  if (c > 0x10FFFF) return Category::Cn;
  const std::uint32_t* end = ut::kCategoryRuns + ut::kCategoryRuns_size;
  const std::uint32_t* run = std::upper_bound(ut::kCategoryRuns, end, std::uint32_t(c) << 5 | 31u);
  return static_cast<Category>(*std::prev(run) & 31u);  // the first run starts at 0
}

bool is_white_space(char32_t c) {
  for (std::size_t i = 0; i < ut::kWhiteSpace_size; i += 2)
    if (c >= ut::kWhiteSpace[i] && c <= ut::kWhiteSpace[i + 1]) return true;
  return false;
}

int combining_class(char32_t c) {
  if (c < 0x300 || c > 0x10FFFF) return 0;
  const std::uint32_t* end = ut::kCombiningRuns + ut::kCombiningRuns_size;
  const std::uint32_t* run = std::upper_bound(ut::kCombiningRuns, end, std::uint32_t(c) << 8 | 255u);
  return int(*std::prev(run) & 255u);
}

std::u32string decode_utf8(std::string_view bytes) {
  std::u32string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    bool whole = false;
    const std::size_t n = utf8_sequence(bytes, i, whole);
    out += whole ? utf8_code_point(bytes, i, n) : char32_t(0xFFFD);
    i += n;
  }
  return out;
}

std::string encode_utf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text) rv::append_utf8(out, c);
  return out;
}

}  // namespace rv::unicode
