// Normalizers and pre-tokenizers (pipeline.hpp), as tokenizers.js applies them; Split's behaviours and invert and
// Metaspace's split as Hugging Face's Rust tokenizers define them (tokenizers.js reads Split as Isolated throughout).
#include <algorithm>

#include "core/tokenize/pipeline.hpp"
#include "core/tokenize/unicode.hpp"

namespace rv::tokenize {
namespace {

using Pieces = std::vector<std::u32string>;
template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

struct Piece {
  std::size_t begin, end;
  bool match;
};

// The text cut at the pattern's matches: matches and the text between them, in order, none empty (an empty match
// only cuts, as tokenizers.js's regex_split).
std::vector<Piece> cut(const Regex& re, std::u32string_view text) {
  std::vector<Piece> out;
  std::size_t prev = 0;
  for (const Span& m : re.find_all(text)) {
    if (m.begin > prev) out.push_back({prev, m.begin, false});
    if (m.end > m.begin) out.push_back({m.begin, m.end, true});
    prev = m.end;
  }
  if (prev < text.size()) out.push_back({prev, text.size(), false});
  return out;
}

// Split's behaviours as the Rust tokenizers fold the pieces: a match joins the piece before it (MergedWithPrevious)
// or after it (MergedWithNext) unless that piece is a match too; Contiguous joins neighbours of the same kind.
void split(const SplitPreTokenizer& s, const std::u32string& text, Pieces& out) {
  std::vector<Piece> pieces = cut(s.pattern, text);
  if (s.invert)
    for (Piece& p : pieces) p.match = !p.match;
  const std::size_t first = out.size();
  bool prev_match = false;
  for (const Piece& p : pieces) {
    const std::u32string part = text.substr(p.begin, p.end - p.begin);
    if (s.behavior == SplitBehavior::Removed && p.match) continue;
    const bool join =
        out.size() > first && ((s.behavior == SplitBehavior::MergedWithPrevious && p.match && !prev_match) ||
                               (s.behavior == SplitBehavior::MergedWithNext && prev_match && !p.match) ||
                               (s.behavior == SplitBehavior::Contiguous && p.match == prev_match));
    if (join)
      out.back() += part;
    else
      out.push_back(part);
    prev_match = p.match;
  }
}

void byte_level(const ByteLevelPreTokenizer& b, std::u32string text, Pieces& out) {
  if (b.add_prefix_space && (text.empty() || text[0] != ' ')) text.insert(text.begin(), U' ');
  std::vector<Span> words;
  if (b.use_regex)
    words = b.pattern.find_all(text);
  else
    words.push_back({0, text.size()});
  for (const Span& w : words) {
    std::u32string mapped;
    for (unsigned char c : unicode::encode_utf8(std::u32string_view(text).substr(w.begin, w.end - w.begin)))
      mapped += byte_char(c);
    out.push_back(std::move(mapped));
  }
}

void digits(const DigitsPreTokenizer& d, const std::u32string& text, Pieces& out) {
  const auto digit = [](char32_t c) { return c >= '0' && c <= '9'; };  // JavaScript's \d
  for (std::size_t i = 0; i < text.size();) {
    std::size_t j = i + 1;
    const bool is_digit = digit(text[i]);
    while (j < text.size() && digit(text[j]) == is_digit && !(is_digit && d.individual_digits)) ++j;
    out.push_back(text.substr(i, j - i));
    i = j;
  }
}

void metaspace(const MetaspacePreTokenizer& m, std::u32string text, std::size_t section, Pieces& out) {
  std::replace(text.begin(), text.end(), U' ', m.replacement);
  const bool prepend =
      m.prepend_scheme == PrependScheme::Always || (m.prepend_scheme == PrependScheme::First && section == 0);
  if (prepend && (text.empty() || text[0] != m.replacement)) text.insert(text.begin(), m.replacement);
  if (!m.split) return out.push_back(std::move(text));
  std::size_t start = 0;  // each replacement character begins a new piece (MergedWithNext)
  for (std::size_t i = 1; i <= text.size(); ++i)
    if (i == text.size() || text[i] == m.replacement) {
      out.push_back(text.substr(start, i - start));
      start = i;
    }
}

}  // namespace

std::u32string trim_start(std::u32string_view s) {
  std::size_t i = 0;
  while (i < s.size() && unicode::is_js_space(s[i])) ++i;
  return std::u32string(s.substr(i));
}

std::u32string trim_end(std::u32string_view s) {
  std::size_t n = s.size();
  while (n > 0 && unicode::is_js_space(s[n - 1])) --n;
  return std::u32string(s.substr(0, n));
}

std::u32string replace_all(const Regex& re, std::u32string_view text, std::u32string_view content) {
  std::u32string out;
  std::size_t prev = 0;
  for (const Span& m : re.find_all(text)) {
    out.append(text.substr(prev, m.begin - prev));
    out.append(content);
    prev = m.end;
  }
  out.append(text.substr(std::min(prev, text.size())));
  return out;
}

std::u32string normalize(const std::vector<Normalizer>& normalizers, std::u32string text) {
  for (const Normalizer& n : normalizers)
    text = std::visit(Overloaded{
                          [&](const UnicodeNormalizer& u) { return unicode::normalize(text, u.form); },
                          [&](const PrependNormalizer& p) { return p.prepend + text; },
                          [&](const ReplaceNormalizer& r) { return replace_all(r.pattern, text, r.content); },
                      },
                      n);
  return text;
}

std::vector<std::u32string> pre_tokenize(const std::vector<PreTokenizer>& pre_tokenizers, std::u32string text,
                                         std::size_t section_index) {
  Pieces pieces{std::move(text)};
  for (const PreTokenizer& p : pre_tokenizers) {
    Pieces next;
    for (std::u32string& piece : pieces)
      std::visit(Overloaded{
                     [&](const ByteLevelPreTokenizer& b) { byte_level(b, std::move(piece), next); },
                     [&](const SplitPreTokenizer& s) { split(s, piece, next); },
                     [&](const DigitsPreTokenizer& d) { digits(d, piece, next); },
                     [&](const MetaspacePreTokenizer& m) { metaspace(m, std::move(piece), section_index, next); },
                 },
                 p);
    pieces = std::move(next);
  }
  return pieces;
}

}  // namespace rv::tokenize
