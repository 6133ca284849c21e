// The regex engine's matcher (regex.hpp): leftmost-first backtracking through continuations.
#include "core/tokenize/regex.hpp"

#include "core/tokenize/unicode.hpp"

namespace rv::tokenize {
namespace {

// A non-owning callable reference: what is left of the pattern after an item, given where the item ended.
struct Continuation {
  bool (*call)(const void*, std::size_t);
  const void* self;
  bool operator()(std::size_t pos) const { return call(self, pos); }
};
template <class F>
Continuation continuation(const F& f) {
  return {[](const void* self, std::size_t pos) { return (*static_cast<const F*>(self))(pos); }, &f};
}

bool term_matches(const Regex::Term& t, char32_t c) {
  bool in = false;
  switch (t.kind) {
    case Regex::Term::Kind::Range:
      in = c >= t.lo && c <= t.hi;
      break;
    case Regex::Term::Kind::Categories:
      in = unicode::in(c, t.mask);
      break;
    case Regex::Term::Kind::WhiteSpace:
      in = unicode::is_white_space(c);
      break;
    case Regex::Term::Kind::JsSpace:
      in = unicode::is_js_space(c);
      break;
  }
  return in != t.negated;
}

char32_t other_case(char32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if (c >= 'A' && c <= 'Z') return c + 32;
  return c;
}

}  // namespace

bool Regex::CharSet::matches(char32_t c) const {
  const auto raw = [&](char32_t x) {
    for (const Term& t : terms)
      if (term_matches(t, x)) return !negated;
    return negated;
  };
  return raw(c) || (fold && other_case(c) != c && raw(other_case(c)));
}

class RegexMatcher {
 public:
  RegexMatcher(const Regex& re, std::u32string_view text) : re_(re), text_(text) {}

  bool group(int g, std::size_t pos, Continuation k) const {
    for (const Regex::Sequence& s : re_.groups_[std::size_t(g)].alternatives)
      if (sequence(s, 0, pos, k)) return true;
    return false;
  }

 private:
  bool sequence(const Regex::Sequence& s, std::size_t i, std::size_t pos, Continuation k) const {
    if (i == s.size()) return k(pos);
    const Regex::Item& item = s[i];
    const auto next = [&](std::size_t p) { return sequence(s, i + 1, p, k); };
    if (item.kind == Regex::Item::Kind::Set) {  // greedy: the longest run first, then one shorter at a time
      const Regex::CharSet& set = re_.sets_[std::size_t(item.index)];
      const std::size_t most = item.max < 0 ? text_.size() - pos : std::size_t(item.max);
      std::size_t n = 0;
      while (n < most && pos + n < text_.size() && set.matches(text_[pos + n])) ++n;
      for (std::size_t c = n + 1; c-- > std::size_t(item.min);)
        if (next(pos + c)) return true;
      return false;
    }
    if (item.kind == Regex::Item::Kind::Ahead) {
      const auto found = [](std::size_t) { return true; };
      if (group(item.index, pos, continuation(found)) == item.negative) return false;
      return next(pos);
    }
    if (item.max != 0 && group(item.index, pos, continuation(next))) return true;  // a group: once, or not at all
    return item.min == 0 && next(pos);
  }

  const Regex& re_;
  std::u32string_view text_;
};

Regex Regex::literal(std::u32string_view text) {
  Regex re;
  re.source_ = unicode::encode_utf8(text);
  re.groups_.emplace_back();
  re.groups_[0].alternatives.emplace_back();
  for (char32_t c : text) {
    re.sets_.push_back(CharSet{{Term{Term::Kind::Range, false, c, c, 0}}, false, false});
    re.groups_[0].alternatives[0].push_back(Item{Item::Kind::Set, int(re.sets_.size() - 1)});
  }
  return re;
}

std::optional<Span> Regex::find(std::u32string_view text, std::size_t from) const {
  const RegexMatcher m(*this, text);
  for (std::size_t begin = from; begin <= text.size(); ++begin) {
    std::size_t end = 0;
    const auto done = [&](std::size_t p) {
      end = p;
      return true;
    };
    if (m.group(0, begin, continuation(done))) return Span{begin, end};
  }
  return std::nullopt;
}

std::vector<Span> Regex::find_all(std::u32string_view text) const {
  std::vector<Span> out;
  for (std::size_t from = 0; from <= text.size();) {
    const std::optional<Span> s = find(text, from);
    if (!s) break;
    out.push_back(*s);
    from = s->end > s->begin ? s->end : s->end + 1;
  }
  return out;
}

}  // namespace rv::tokenize
