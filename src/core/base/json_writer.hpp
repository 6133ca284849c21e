// The one JSON writer (the app's state(), the lab's document, its PyTorch data file, the CLI's responses): objects,
// arrays, escaped strings (\n, \t, ... as Python writes them; bytes that are not UTF-8 as U+FFFD), round-trip
// numbers (core/base/format.hpp), non-finite numbers as null. No JSON library: nlohmann-json costs ~25 KB of wasm.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace rv {

class JsonWriter {
 public:
  // spaced: ", " and ": " between items, as Python's json.dumps writes (the lab's document); else none (state()).
  // float_point: a double is always written as a float token, in the spelling of the CLI's protocol (docs/cli.md):
  // 1.0, 0.0001, 1e-05, 123456789012345.6, 1e+16 (fixed below 10^15 and from 10^-4); else the shortest (1, 1e+16).
  explicit JsonWriter(bool spaced = false, bool float_point = false)
      : comma_(spaced ? ", " : ","), colon_(spaced ? ": " : ":"), float_point_(float_point) {}
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const char* name);
  JsonWriter& key(const std::string& name);
  JsonWriter& value(double v);  // non-finite numbers become null: JSON has no NaN
  JsonWriter& value(float v);   // the shortest decimal that reads back as the same float
  JsonWriter& value(const std::optional<double>& v) { return v ? value(*v) : null(); }
  JsonWriter& value(long long v);
  JsonWriter& value(int v) { return value((long long)v); }
  JsonWriter& value(bool v);
  JsonWriter& value(const std::string& v);
  JsonWriter& value(const char* v) { return value(std::string(v)); }
  JsonWriter& null();
  JsonWriter& raw(const std::string& json);  // an already-written JSON value (core's lab_json)
  JsonWriter& values(const double* v, int n);
  JsonWriter& values(const std::vector<std::string>& v);
  // Any range of values above, as one array (std::vector, Eigen vectors).
  template <class Range>
  JsonWriter& list(const Range& xs) {
    begin_array();
    for (const auto& x : xs) value(x);
    return end_array();
  }
  // A whole member: key, then value.
  template <class T>
  JsonWriter& field(const char* name, const T& v) {
    key(name);
    return value(v);
  }
  const std::string& str() const { return out_; }
  // False once a non-finite number was written (as null): a caller may refuse such a document.
  bool finite() const { return finite_; }

 private:
  void separate();
  const char* comma_;
  const char* colon_;
  bool float_point_;
  std::string out_;
  bool need_comma_ = false;
  bool finite_ = true;
};

}  // namespace rv
