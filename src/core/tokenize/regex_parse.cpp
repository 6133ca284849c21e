// The regex engine's parser (regex.hpp): pattern text -> character sets, groups and quantified items.
#include <cctype>
#include <cstdlib>

#include "core/tokenize/regex.hpp"
#include "core/tokenize/unicode.hpp"

namespace rv::tokenize {
namespace {

using unicode::bit;
using unicode::Category;
using Term = Regex::Term;

constexpr const char* kCategoryNames[unicode::kCategoryCount] = {
    "Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps",
    "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co"};

// \p{name}: a general category, a major class (its one letter or long name), or White_Space.
std::optional<Term> property(const std::string& name) {
  static const struct {
    const char* major;
    const char* long_name;
  } kMajor[] = {{"L", "Letter"}, {"M", "Mark"},      {"N", "Number"}, {"P", "Punctuation"},
                {"S", "Symbol"}, {"Z", "Separator"}, {"C", "Other"}};
  if (name == "White_Space" || name == "space") return Term{Term::Kind::WhiteSpace, false, 0, 0, 0};
  Term t{Term::Kind::Categories, false, 0, 0, 0};
  for (int c = 0; c < unicode::kCategoryCount; ++c) {
    const std::string cat = kCategoryNames[c];
    if (cat == name) t.mask |= bit(Category(c));
    for (const auto& m : kMajor)
      if ((name == m.major || name == m.long_name) && cat[0] == m.major[0]) t.mask |= bit(Category(c));
  }
  if (name == "LC" || name == "Cased_Letter") t.mask = bit(Category::Lu) | bit(Category::Ll) | bit(Category::Lt);
  if (t.mask == 0) return std::nullopt;
  return t;
}

Term range(char32_t lo, char32_t hi) {
  return Term{Term::Kind::Range, false, lo, hi, 0};
}

}  // namespace

class RegexParser {
 public:
  RegexParser(std::string_view pattern, RegexDialect dialect)
      : text_(unicode::decode_utf8(pattern)), dialect_(dialect) {
    re_.source_ = std::string(pattern);
  }

  Expected<Regex> run() {
    if (text_.size() > Regex::kMaxChars)
      return bad_request("a regex of " + std::to_string(text_.size()) + " characters is over the limit of " +
                         std::to_string(Regex::kMaxChars));
    re_.groups_.emplace_back();
    parse_group(0, false);
    if (!error_ && at_ < text_.size()) fail("an unmatched ')'");
    if (error_)
      return bad_request("the regex \"" + re_.source_ + "\" is not supported: " + *error_ + " at character " +
                         std::to_string(error_at_ + 1));
    return std::move(re_);
  }

 private:
  void fail(const std::string& why) {
    if (!error_) error_ = why, error_at_ = at_;
  }
  bool more() const { return !error_ && at_ < text_.size(); }
  char32_t peek(std::size_t ahead = 0) const { return at_ + ahead < text_.size() ? text_[at_ + ahead] : 0; }
  bool starts(std::u32string_view s) const { return text_.compare(at_, s.size(), s) == 0; }

  int add_set(std::vector<Term> terms, bool negated, bool fold) {
    re_.sets_.push_back(Regex::CharSet{std::move(terms), negated, fold});
    return int(re_.sets_.size() - 1);
  }

  // Alternatives up to a ')' (left for the caller) or the end, into groups_[g].
  void parse_group(int g, bool fold) {
    re_.groups_[std::size_t(g)].alternatives.emplace_back();
    while (more() && peek() != ')') {
      if (peek() == '|') {
        ++at_;
        re_.groups_[std::size_t(g)].alternatives.emplace_back();
        continue;
      }
      std::optional<Regex::Item> item = parse_atom(fold);
      if (!item) return;
      parse_quantifier(*item);
      re_.groups_[std::size_t(g)].alternatives.back().push_back(*item);
    }
  }

  std::optional<Regex::Item> parse_atom(bool fold) {
    const char32_t c = peek();
    if (c == '(') return parse_paren(fold);
    if (c == '[') return Regex::Item{Regex::Item::Kind::Set, parse_class(fold)};
    if (c == '^' || c == '$') return fail("an anchor (^ or $)"), std::nullopt;
    if (c == '?' || c == '*' || c == '+') return fail("a quantifier with nothing to repeat"), std::nullopt;
    if (c == '.') {
      ++at_;
      std::vector<Term> not_newline = {range('\n', '\n')};
      if (dialect_ == RegexDialect::JavaScript)
        not_newline.insert(not_newline.end(), {range('\r', '\r'), range(0x2028, 0x2029)});
      return Regex::Item{Regex::Item::Kind::Set, add_set(not_newline, true, false)};
    }
    std::vector<Term> terms;
    if (c == '\\') {
      parse_escape(terms);
    } else {
      terms.push_back(range(c, c));
      ++at_;
    }
    if (error_) return std::nullopt;
    return Regex::Item{Regex::Item::Kind::Set, add_set(std::move(terms), false, fold)};
  }

  std::optional<Regex::Item> parse_paren(bool fold) {
    Regex::Item item{Regex::Item::Kind::Group};
    if (starts(U"(?:")) {
      at_ += 3;
    } else if (starts(U"(?i:")) {
      at_ += 4, fold = true;
    } else if (starts(U"(?=") || starts(U"(?!")) {
      item.kind = Regex::Item::Kind::Ahead, item.negative = peek(2) == '!', at_ += 3;
    } else if (peek(1) == '?') {
      return fail("a group kind other than (?:, (?i:, (?= and (?! (lookbehind, named, atomic)"), std::nullopt;
    } else {
      at_ += 1;  // a capturing group: nothing reads captures, so it only groups
    }
    if (++depth_ > Regex::kMaxDepth) return fail("groups nested deeper than 32"), std::nullopt;
    item.index = int(re_.groups_.size());
    re_.groups_.emplace_back();
    parse_group(item.index, fold);
    --depth_;
    if (error_) return std::nullopt;
    if (peek() != ')') return fail("an unclosed '('"), std::nullopt;
    ++at_;
    return item;
  }

  // A quantifier after an atom, if any: ?, *, +, {n}, {n,}, {n,m}; no lazy or possessive forms.
  void parse_quantifier(Regex::Item& item) {
    const char32_t c = peek();
    if (c == '?' || c == '*' || c == '+') {
      item.min = c == '+' ? 1 : 0, item.max = c == '?' ? 1 : -1;
      ++at_;
    } else if (c == '{' && !parse_braces(item)) {
      return;
    } else if (c != '{') {
      return;
    }
    if (peek() == '?' || peek() == '+') return fail("a lazy or possessive quantifier");
    if (item.kind == Regex::Item::Kind::Ahead) return fail("a repeated lookahead");
    if (item.kind == Regex::Item::Kind::Group && (item.max < 0 || item.max > 1))
      return fail("a group repeated more than once (only single characters and classes repeat)");
  }

  bool parse_braces(Regex::Item& item) {
    std::size_t i = at_ + 1;
    auto number = [&](int& out) {
      std::size_t start = i;
      long v = 0;
      while (i < text_.size() && text_[i] >= '0' && text_[i] <= '9' && v < 100000) v = v * 10 + (text_[i++] - '0');
      out = int(v);
      return i > start;
    };
    int lo = 0, hi = 0;
    if (!number(lo)) return fail("a '{' that is not a quantifier"), false;
    hi = lo;
    if (i < text_.size() && text_[i] == ',') {
      ++i;
      if (!number(hi)) hi = -1;
    }
    if (i >= text_.size() || text_[i] != '}' || (hi >= 0 && hi < lo)) return fail("a malformed {n,m}"), false;
    item.min = lo, item.max = hi, at_ = i + 1;
    return true;
  }

  // \x, at at_ (the backslash), as class terms.
  void parse_escape(std::vector<Term>& terms) {
    const char32_t e = peek(1);
    at_ += 2;
    const bool onig = dialect_ == RegexDialect::Oniguruma;
    switch (e) {
      case 'n':
        return terms.push_back(range('\n', '\n'));
      case 'r':
        return terms.push_back(range('\r', '\r'));
      case 't':
        return terms.push_back(range('\t', '\t'));
      case 'f':
        return terms.push_back(range('\f', '\f'));
      case 'v':
        return terms.push_back(range('\v', '\v'));
      case 's':
      case 'S':
        return terms.push_back(Term{onig ? Term::Kind::WhiteSpace : Term::Kind::JsSpace, e == 'S', 0, 0, 0});
      case 'd':
      case 'D':
        if (onig) return terms.push_back(Term{Term::Kind::Categories, e == 'D', 0, 0, bit(Category::Nd)});
        return terms.push_back(Term{Term::Kind::Range, e == 'D', '0', '9', 0});
      case 'p':
      case 'P':
        return parse_property(e == 'P', terms);
      case 'x':
      case 'u':
        return parse_hex(e, terms);
      default:
        break;
    }
    if (e == 0 || (e < 128 && std::isalnum(int(e)))) {
      at_ -= 2;
      return fail("the escape \\" + unicode::encode_utf8(std::u32string(1, e)));
    }
    terms.push_back(range(e, e));  // an escaped symbol stands for itself
  }

  void parse_property(bool negated, std::vector<Term>& terms) {
    const std::size_t close = text_.find('}', at_);
    if (peek() != '{' || close == std::u32string::npos) return at_ -= 2, fail("a \\p without {name}");
    const std::string name = unicode::encode_utf8(std::u32string_view(text_).substr(at_ + 1, close - at_ - 1));
    std::optional<Term> t = property(name);
    if (!t) return at_ -= 2, fail("the property \\p{" + name + "}");
    t->negated = negated;
    terms.push_back(*t);
    at_ = close + 1;
  }

  void parse_hex(char32_t kind, std::vector<Term>& terms) {
    const bool braced = peek() == '{';
    const std::size_t begin = braced ? at_ + 1 : at_;
    const std::size_t end = braced ? text_.find('}', at_) : at_ + (kind == 'x' ? 2 : 4);
    if (end == std::u32string::npos || end > text_.size() || end == begin || end - begin > 6)
      return fail("a malformed \\x or \\u escape");
    const std::string digits = unicode::encode_utf8(std::u32string_view(text_).substr(begin, end - begin));
    for (const char d : digits)
      if (!std::isxdigit(static_cast<unsigned char>(d))) return fail("a malformed \\x or \\u escape");
    const unsigned long v = std::strtoul(digits.c_str(), nullptr, 16);
    if (v > 0x10FFFF) return fail("a malformed \\x or \\u escape");
    terms.push_back(range(char32_t(v), char32_t(v)));
    at_ = end + (braced ? 1 : 0);
  }

  // [..] at at_; returns the set's index.
  int parse_class(bool fold) {
    ++at_;
    const bool negated = peek() == '^';
    if (negated) ++at_;
    if (fold && negated) fail("a negated class inside (?i:..)");
    std::vector<Term> terms;
    while (more() && peek() != ']') {
      if (peek() == '[' || starts(U"&&")) return fail("a nested class or class intersection"), 0;
      const std::size_t before = terms.size();
      if (peek() == '\\') {
        parse_escape(terms);
      } else {
        terms.push_back(range(peek(), peek()));
        ++at_;
      }
      const bool single = terms.size() == before + 1 && terms.back().kind == Term::Kind::Range &&
                          !terms.back().negated && terms.back().lo == terms.back().hi;
      if (single && peek() == '-' && peek(1) != ']' && peek(1) != 0) {
        ++at_;
        std::vector<Term> upper;
        if (peek() == '\\') {
          parse_escape(upper);
        } else {
          upper.push_back(range(peek(), peek()));
          ++at_;
        }
        if (upper.size() != 1 || upper[0].kind != Term::Kind::Range || upper[0].lo < terms.back().lo)
          return fail("a malformed range in a class"), 0;
        terms.back().hi = upper[0].lo;
      }
    }
    if (peek() != ']') return fail("an unclosed '['"), 0;
    if (terms.empty()) return fail("an empty class"), 0;
    ++at_;
    return add_set(std::move(terms), negated, fold);
  }

  std::u32string text_;
  RegexDialect dialect_;
  std::size_t at_ = 0;
  int depth_ = 0;  // groups open now
  std::optional<std::string> error_;
  std::size_t error_at_ = 0;
  Regex re_;
};

Expected<Regex> Regex::compile(std::string_view pattern, RegexDialect dialect) {
  return RegexParser(pattern, dialect).run();
}

}  // namespace rv::tokenize
