// Unicode normalization (normalize.hpp): full decomposition, canonical ordering, then canonical composition.
#include "core/tokenize/normalize.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "core/tokenize/unicode.hpp"
#include "core/tokenize/unicode_tables.hpp"

namespace rv::unicode {
namespace {
namespace ut = unicode_tables;

// Hangul syllables (Unicode chapter 3.12): S = SBase + (L * VCount + V) * TCount + T.
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kSCount = kLCount * kVCount * kTCount;

struct Decomposition {
  const char32_t* parts = nullptr;
  int length = 0;
  bool compat = false;
};

std::size_t pool_offset(std::size_t index) {
  std::size_t offset = ut::kDecompositionOffsets[index / ut::kDecompositionStride];
  for (std::size_t i = index - index % ut::kDecompositionStride; i < index; ++i)
    offset += ut::kDecompositionKeys[i] >> 21 & 31u;
  return offset;
}

Decomposition entry(std::size_t index) {
  const std::uint32_t key = ut::kDecompositionKeys[index];
  return {ut::kDecompositionPool + pool_offset(index), int(key >> 21 & 31u), (key >> 26 & 1u) != 0};
}

// The one-step decomposition of c from UnicodeData.txt, if it has one.
Decomposition find_decomposition(char32_t c) {
  const std::uint32_t* end = ut::kDecompositionKeys + ut::kDecompositionKeys_size;
  const std::uint32_t* it = std::lower_bound(ut::kDecompositionKeys, end, c,
                                             [](std::uint32_t key, char32_t v) { return (key & 0x1FFFFFu) < v; });
  if (it == end || (*it & 0x1FFFFFu) != c) return {};
  return entry(std::size_t(it - ut::kDecompositionKeys));
}

void decompose(char32_t c, bool compat, std::u32string& out) {
  if (c >= kSBase && c < kSBase + kSCount) {
    const char32_t s = c - kSBase;
    out += kLBase + s / (kVCount * kTCount);
    out += kVBase + s % (kVCount * kTCount) / kTCount;
    if (s % kTCount) out += kTBase + s % kTCount;
    return;
  }
  const Decomposition d = find_decomposition(c);
  if (d.length == 0 || (d.compat && !compat)) {
    out += c;
    return;
  }
  for (int i = 0; i < d.length; ++i) decompose(d.parts[i], compat, out);
}

// The primary composite of (a, b), or 0.
char32_t compose(char32_t a, char32_t b) {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase && b < kTBase + kTCount)
    return a + (b - kTBase);
  const std::uint16_t* end = ut::kCompositions + ut::kCompositions_size;
  const std::pair<char32_t, char32_t> key{a, b};
  const std::uint16_t* it = std::lower_bound(ut::kCompositions, end, key, [](std::uint16_t index, const auto& k) {
    const Decomposition d = entry(index);
    return std::pair<char32_t, char32_t>{d.parts[0], d.parts[1]} < k;
  });
  if (it == end) return 0;
  const Decomposition d = entry(*it);
  return d.parts[0] == a && d.parts[1] == b ? char32_t(ut::kDecompositionKeys[*it] & 0x1FFFFFu) : 0;
}

// Canonical ordering: each run of non-starters sorted stably by combining class.
void reorder(std::u32string& s) {
  for (std::size_t i = 0; i < s.size();) {
    if (combining_class(s[i]) == 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < s.size() && combining_class(s[j]) != 0) ++j;
    std::stable_sort(s.begin() + std::ptrdiff_t(i), s.begin() + std::ptrdiff_t(j),
                     [](char32_t x, char32_t y) { return combining_class(x) < combining_class(y); });
    i = j;
  }
}

// Canonical composition (UAX #15's reference algorithm).
std::u32string recompose(const std::u32string& d) {
  std::u32string out;
  if (d.empty()) return out;
  out += d[0];
  std::size_t starter = 0;
  int last_class = combining_class(d[0]) == 0 ? 0 : 256;  // a leading non-starter blocks composition
  for (std::size_t i = 1; i < d.size(); ++i) {
    const int cls = combining_class(d[i]);
    const char32_t composite = compose(out[starter], d[i]);
    if (composite && (last_class < cls || last_class == 0)) {
      out[starter] = composite;
      continue;
    }
    if (cls == 0) starter = out.size();
    last_class = cls;
    out += d[i];
  }
  return out;
}

}  // namespace

std::u32string normalize(std::u32string_view text, Form form) {
  const bool compat = form == Form::NFKC || form == Form::NFKD;
  std::u32string d;
  d.reserve(text.size());
  for (char32_t c : text) decompose(c, compat, d);
  reorder(d);
  return form == Form::NFC || form == Form::NFKC ? recompose(d) : d;
}

}  // namespace rv::unicode
