// Code points: the UTF-8 codec and the property look-ups over the generated tables (unicode.hpp).
#include "core/tokenize/unicode.hpp"

#include <algorithm>
#include <iterator>

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
  char32_t cp = 0;
  int needed = 0, seen = 0;
  unsigned lower = 0x80, upper = 0xBF;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const unsigned b = static_cast<unsigned char>(bytes[i]);
    if (needed == 0) {
      if (b < 0x80) {
        out += char32_t(b);
      } else if (b >= 0xC2 && b <= 0xDF) {
        needed = 1, cp = b & 0x1F;
      } else if (b >= 0xE0 && b <= 0xEF) {
        lower = b == 0xE0 ? 0xA0 : 0x80, upper = b == 0xED ? 0x9F : 0xBF, needed = 2, cp = b & 0x0F;
      } else if (b >= 0xF0 && b <= 0xF4) {
        lower = b == 0xF0 ? 0x90 : 0x80, upper = b == 0xF4 ? 0x8F : 0xBF, needed = 3, cp = b & 0x07;
      } else {
        out += char32_t(0xFFFD);
      }
      continue;
    }
    if (b < lower || b > upper) {  // the sequence so far is one U+FFFD; this byte starts afresh
      out += char32_t(0xFFFD);
      needed = seen = 0, lower = 0x80, upper = 0xBF;
      --i;
      continue;
    }
    lower = 0x80, upper = 0xBF, cp = cp << 6 | (b & 0x3F);
    if (++seen == needed) {
      out += cp;
      needed = seen = 0;
    }
  }
  if (needed) out += char32_t(0xFFFD);
  return out;
}

void append_utf8(std::string& out, char32_t c) {
  if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;  // as TextEncoder writes a lone surrogate
  if (c < 0x80) {
    out += char(c);
  } else if (c < 0x800) {
    out += char(0xC0 | c >> 6), out += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += char(0xE0 | c >> 12), out += char(0x80 | (c >> 6 & 0x3F)), out += char(0x80 | (c & 0x3F));
  } else {
    out += char(0xF0 | c >> 18), out += char(0x80 | (c >> 12 & 0x3F)), out += char(0x80 | (c >> 6 & 0x3F));
    out += char(0x80 | (c & 0x3F));
  }
}

std::string encode_utf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text) append_utf8(out, c);
  return out;
}

}  // namespace rv::unicode
