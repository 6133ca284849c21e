// A recursive-descent JSON parser whose first error names its line and column; the depth limit bounds the recursion.
#include "core/base/json_value.hpp"
#include "core/base/utf8.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>

namespace rv {

const JsonValue* JsonValue::find(std::string_view key) const {
  for (auto it = object.rbegin(); it != object.rend(); ++it)
    if (it->first == key) return &it->second;
  return nullptr;
}

namespace {

using Kind = JsonValue::Kind;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Parser {
 public:
  Parser(std::string_view text, int max_depth) : s_(text), max_depth_(max_depth) {}

  Expected<JsonValue> document() {
    JsonValue v;
    if (value(v, 0)) {
      skip_space();
      if (pos_ < s_.size()) expected(pos_, "the end of the text");
    }
    if (error_) return *error_;
    return v;
  }

 private:
  std::string_view s_;
  int max_depth_;
  std::size_t pos_ = 0;
  std::optional<Error> error_;

  std::string position(std::size_t at) const {
    std::size_t line = 1, line_start = 0;
    for (std::size_t i = 0; i < at; ++i)
      if (s_[i] == '\n') ++line, line_start = i + 1;
    return "line " + std::to_string(line) + ", column " + std::to_string(at - line_start + 1);
  }
  // What the text holds at `at`, for "got ...".
  std::string found(std::size_t at) const {
    if (at >= s_.size()) return "the end of the text";
    const auto c = static_cast<unsigned char>(s_[at]);
    if (c >= 0x20 && c < 0x7F) return std::string("'") + s_[at] + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
    return buf;
  }
  bool fail(std::size_t at, const std::string& what) {
    if (!error_) error_ = bad_request("malformed JSON at " + position(at) + ": " + what);
    return false;
  }
  bool expected(std::size_t at, const std::string& what) { return fail(at, "expected " + what + ", got " + found(at)); }
  bool at(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  bool at_digit() const { return pos_ < s_.size() && is_digit(s_[pos_]); }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }

  bool value(JsonValue& out, int depth) {
    skip_space();
    if (at('{') || at('[')) {
      if (depth >= max_depth_) {
        error_ = bad_request("JSON nests deeper than the limit of " + std::to_string(max_depth_) + " levels at " +
                             position(pos_));
        return false;
      }
      return at('{') ? object(out, depth + 1) : array(out, depth + 1);
    }
    if (at('"')) {
      out.kind = Kind::String;
      return string(out.string);
    }
    if (at('-') || at_digit()) return number(out);
    if (word("true")) return set_boolean(out, true);
    if (word("false")) return set_boolean(out, false);
    if (word("null")) return true;
    if (word("NaN")) return set_number(out, std::numeric_limits<double>::quiet_NaN());
    if (word("Infinity")) return set_number(out, std::numeric_limits<double>::infinity());
    return expected(pos_, "a value");
  }
  bool word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  static bool set_boolean(JsonValue& out, bool b) {
    out.kind = Kind::Boolean;
    out.boolean = b;
    return true;
  }
  static bool set_number(JsonValue& out, double x) {
    out.kind = Kind::Number;
    out.number = x;
    return true;
  }

  bool digits(const char* what) {
    if (!at_digit()) return expected(pos_, what);
    while (at_digit()) ++pos_;
    return true;
  }
  bool number(JsonValue& out) {
    const std::size_t start = pos_;
    if (at('-')) {
      ++pos_;
      if (word("Infinity")) return set_number(out, -std::numeric_limits<double>::infinity());
    }
    if (at('0')) {
      ++pos_;
      if (at_digit()) return expected(pos_, "no digit after a leading 0");
    } else if (!digits("a digit")) {
      return false;
    }
    out.integer = true;
    if (at('.')) {
      ++pos_;
      out.integer = false;
      if (!digits("a digit after '.'")) return false;
    }
    if (at('e') || at('E')) {
      ++pos_;
      out.integer = false;
      if (at('+') || at('-')) ++pos_;
      if (!digits("a digit in the exponent")) return false;
    }
    const std::string token(s_.substr(start, pos_ - start));  // strtod needs the terminating NUL
    const double x = std::strtod(token.c_str(), nullptr);
    if (out.integer) {
      errno = 0;
      const long long whole = std::strtoll(token.c_str(), nullptr, 10);
      if (errno == 0) out.exact = whole;
    }
    if (!std::isfinite(x))
      return fail(start, "expected a number within the range of a double, got " +
                             (token.size() > 24 ? token.substr(0, 24) + "..." : token));
    return set_number(out, x);
  }

  // The four hex digits at pos_ (after "\u"), or -1 with pos_ at the first character that is not one.
  long hex4() {
    long cp = 0;
    for (int k = 0; k < 4; ++k, ++pos_) {
      const int d = pos_ < s_.size() ? hex_digit(s_[pos_]) : -1;
      if (d < 0) return -1;
      cp = cp * 16 + d;
    }
    return cp;
  }
  bool escape(std::string& out) {
    const std::size_t start = pos_;  // at the backslash
    ++pos_;
    const char e = pos_ < s_.size() ? s_[pos_] : '\0';
    static constexpr std::string_view kPlain = "\"\\/bfnrt", kMeaning = "\"\\/\b\f\n\r\t";
    if (const std::size_t k = kPlain.find(e); k != std::string_view::npos) {
      out += kMeaning[k];
      ++pos_;
      return true;
    }
    if (e != 'u') return expected(pos_, "an escape: one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
    ++pos_;
    long cp = hex4();
    if (cp < 0) return expected(pos_, "a hex digit (\\u takes four)");
    const std::string_view written = s_.substr(start, 6);
    if (cp >= 0xDC00 && cp <= 0xDFFF) return fail(start, "expected a high surrogate before " + std::string(written));
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      const long lo = word("\\u") ? hex4() : -1;
      if (lo < 0xDC00 || lo > 0xDFFF) return fail(start, "expected a low surrogate after " + std::string(written));
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    append_utf8(out, static_cast<char32_t>(cp));
    return true;
  }
  bool string(std::string& out) {
    ++pos_;  // the opening quote
    while (pos_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c == '\\') {
        if (!escape(out)) return false;
      } else if (c < 0x20) {
        return expected(pos_, "a string character or an escape");
      } else {
        bool whole = false;
        const std::size_t n = utf8_sequence(s_, pos_, whole);
        if (!whole) return expected(pos_, "UTF-8 text");
        out.append(s_.substr(pos_, n));
        pos_ += n;
      }
    }
    return expected(pos_, "'\"' to end the string");
  }

  // Past the opening bracket; true, and past `close`, when the container is empty.
  bool empty(char close) {
    ++pos_;
    skip_space();
    if (!at(close)) return false;
    ++pos_;
    return true;
  }
  // After an element: past a ',' (done = false) or past `close` (done = true); false at anything else.
  bool next(char close, bool& done) {
    skip_space();
    done = at(close);
    if (!done && !at(',')) return expected(pos_, std::string("',' or '") + close + "'");
    ++pos_;
    return true;
  }
  bool array(JsonValue& out, int depth) {
    out.kind = Kind::Array;
    for (bool done = empty(']'); !done;) {
      out.array.emplace_back();
      if (!value(out.array.back(), depth) || !next(']', done)) return false;
    }
    return true;
  }
  bool object(JsonValue& out, int depth) {
    out.kind = Kind::Object;
    for (bool done = empty('}'); !done;) {
      skip_space();
      if (!at('"')) return expected(pos_, "a string key");
      std::string key;
      if (!string(key)) return false;
      skip_space();
      if (!at(':')) return expected(pos_, "':'");
      ++pos_;
      out.object.emplace_back(std::move(key), JsonValue());
      if (!value(out.object.back().second, depth) || !next('}', done)) return false;
    }
    return true;
  }
};

}  // namespace

Expected<JsonValue> parse_json(std::string_view text, std::size_t max_bytes, int max_depth) {
  if (text.size() > max_bytes)
    return bad_request("JSON text of " + std::to_string(text.size()) + " bytes is over the limit of " +
                       std::to_string(max_bytes) + " bytes");
  return Parser(text, max_depth).document();
}

}  // namespace rv
