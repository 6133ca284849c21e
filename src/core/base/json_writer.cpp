// JsonWriter: commas, escaping and round-trip number formatting.
#include "core/base/json_writer.hpp"

#include <cmath>
#include <cstdio>

#include "core/base/error.hpp"
#include "core/base/format.hpp"

namespace rv {

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
  value(std::string(name));
  out_ += colon_;
  need_comma_ = false;
  return *this;
}
JsonWriter& JsonWriter::value(double v) {
  separate();
  out_ += std::isfinite(v) ? format_number(v) : "null";
  return *this;
}
JsonWriter& JsonWriter::value(float v) {
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
  for (unsigned char c : v) {
    if (c == '"' || c == '\\') {
      out_ += '\\';
      out_ += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out_ += buf;
    } else {
      out_ += char(c);
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
