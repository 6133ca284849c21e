// JsonWriter: commas, escaping and round-trip number formatting.
#include "core/base/json_writer.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "core/base/error.hpp"
#include "core/base/format.hpp"
#include "core/base/utf8.hpp"

namespace rv {
namespace {

// x (finite) as a float token: the shortest round-trip digits, fixed for decimal exponents in (-4, 15] with ".0"
// after a whole number, else d.ddde+XX (at least two exponent digits).
std::string float_token(double x) {
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  std::string s = format_number(x), sign;  // printf's %g: [-]ddd[.ddd][e[+-]XX]
  if (s[0] == '-') sign = "-", s.erase(0, 1);
  int exponent = 0;
  if (const std::size_t e = s.find('e'); e != std::string::npos) {
    exponent = std::atoi(s.c_str() + e + 1);
    s.erase(e);
  }
  const std::size_t dot = s.find('.');
  int point = static_cast<int>(dot == std::string::npos ? s.size() : dot);  // digits before the point
  std::string digits = dot == std::string::npos ? s : s.substr(0, dot) + s.substr(dot + 1);
  while (digits.size() > 1 && digits[0] == '0') digits.erase(0, 1), --point;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int k = static_cast<int>(digits.size()), n = point + exponent;  // x = 0.digits * 10^n
  if (k <= n && n <= 15) return sign + digits + std::string(std::size_t(n - k), '0') + ".0";
  if (0 < n && n <= 15) return sign + digits.substr(0, std::size_t(n)) + "." + digits.substr(std::size_t(n));
  if (-4 < n && n <= 0) return sign + "0." + std::string(std::size_t(-n), '0') + digits;
  const int e = n - 1;
  char buf[16];
  std::snprintf(buf, sizeof buf, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
  return sign + digits.substr(0, 1) + (k > 1 ? "." + digits.substr(1) : std::string()) + buf;
}

}  // namespace

void JsonWriter::separate() {
  if (need_comma_) out_ += comma_;
  need_comma_ = true;
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  out_ += '{';
  need_comma_ = false;
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  out_ += '}';
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  separate();
  out_ += '[';
  need_comma_ = false;
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  out_ += ']';
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::key(const char* name) {
  return key(std::string(name));
}
JsonWriter& JsonWriter::key(const std::string& name) {
  value(name);
  out_ += colon_;
  need_comma_ = false;
  return *this;
}
JsonWriter& JsonWriter::value(double v) {
  separate();
  finite_ = finite_ && std::isfinite(v);
  out_ += !std::isfinite(v) ? "null" : float_point_ ? float_token(v) : format_number(v);
  return *this;
}
JsonWriter& JsonWriter::value(float v) {
  finite_ = finite_ && std::isfinite(v);
  separate();
  out_ += std::isfinite(v) ? format_number(v) : "null";
  return *this;
}
JsonWriter& JsonWriter::value(long long v) {
  separate();
  out_ += std::to_string(v);
  return *this;
}
JsonWriter& JsonWriter::value(bool v) {
  separate();
  out_ += v ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::raw(const std::string& json) {
  separate();
  out_ += json;
  return *this;
}
JsonWriter& JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}
JsonWriter& JsonWriter::value(const std::string& v) {
  separate();
  out_ += '"';
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto c = static_cast<unsigned char>(v[i]);
    static constexpr std::string_view kShort = "\b\f\n\r\t", kLetter = "bfnrt";
    if (c == '"' || c == '\\') {
      out_ += '\\';
      out_ += char(c);
    } else if (const std::size_t k = kShort.find(char(c)); k != std::string_view::npos) {
      out_ += '\\';
      out_ += kLetter[k];
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out_ += buf;
    } else if (c < 0x80) {
      out_ += char(c);
    } else {
      bool whole = true;
      const std::size_t n = utf8_sequence(v, i, whole);
      if (whole)
        out_.append(v, i, n);
      else
        out_ += "\xEF\xBF\xBD";  // U+FFFD
      i += n - 1;
    }
  }
  out_ += '"';
  return *this;
}
JsonWriter& JsonWriter::values(const double* v, int n) {
  begin_array();
  for (int i = 0; i < n; ++i) value(v[i]);
  return end_array();
}
JsonWriter& JsonWriter::values(const std::vector<std::string>& v) {
  begin_array();
  for (const std::string& s : v) value(s);
  return end_array();
}

}  // namespace rv
