// A small backtracking regex engine for the split patterns tokenizers ship (GPT-2's, Llama 3's, Qwen2's and their
// kin): classes with \p{..}, \s, \d, ranges and negation; groups (?:..), (?i:..) (ASCII case folding, as tokenizers.js
// rewrites it) and plain (..) without captures; lookahead (?=..) (?!..); greedy ?, *, +, {n,m} (a group at most
// once). Anything else is refused with a message that quotes the pattern. Matching is leftmost-first over code points,
// as JavaScript's RegExp with the u flag; a repeated character class never recurses, so a 10,000-letter word is fine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"

namespace rv::tokenize {

// \s, \d and '.' as JavaScript's RegExp reads them (ByteLevel's built-in pattern in tokenizers.js), or as
// tokenizers.js rewrites a tokenizer.json's Oniguruma pattern (\s White_Space, \d \p{Nd}, '.' anything but \n).
enum class RegexDialect { JavaScript, Oniguruma };

struct Span {
  std::size_t begin = 0, end = 0;  // code point indices, [begin, end)
};

class Regex {
 public:
  struct Term {  // one member of a character class
    enum class Kind : unsigned char { Range, Categories, WhiteSpace, JsSpace } kind = Kind::Range;
    bool negated = false;
    char32_t lo = 0, hi = 0;  // Range
    std::uint32_t mask = 0;   // Categories: unicode::bit() of each
  };
  struct CharSet {
    std::vector<Term> terms;
    bool negated = false;
    bool fold = false;  // inside (?i:..): an ASCII letter also matches its other case
    bool matches(char32_t c) const;
  };
  struct Item {
    enum class Kind : unsigned char { Set, Group, Ahead } kind = Kind::Set;
    int index = 0;          // into sets or groups
    int min = 1, max = 1;   // max -1: unbounded
    bool negative = false;  // (?!..)
  };
  using Sequence = std::vector<Item>;
  struct Group {
    std::vector<Sequence> alternatives;
  };

  // BadRequest "the regex \"...\" is not supported: <why> at character N" for what the engine does not handle.
  static Expected<Regex> compile(std::string_view pattern, RegexDialect dialect);
  static Regex literal(std::u32string_view text);  // matches exactly text (a pattern's "String")
  // The matcher recurses once per item and the parser once per group: a longer or deeper pattern is refused (real
  // tokenizers' patterns are a few hundred characters, a few groups deep) so the page's small stack cannot overflow.
  static constexpr std::size_t kMaxChars = 1000;
  static constexpr int kMaxDepth = 32;

  // The leftmost match starting at or after `from`, as RegExp.exec with lastIndex = from.
  std::optional<Span> find(std::u32string_view text, std::size_t from) const;
  // Every match, as String.prototype.matchAll: an empty match moves the search on by one code point.
  std::vector<Span> find_all(std::u32string_view text) const;
  const std::string& source() const { return source_; }

 private:
  friend class RegexParser;
  friend class RegexMatcher;
  std::string source_;
  std::vector<CharSet> sets_;
  std::vector<Group> groups_;  // groups_[0] is the whole pattern
};

}  // namespace rv::tokenize
