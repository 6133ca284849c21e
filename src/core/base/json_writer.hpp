// The one JSON writer (the app's state(), the lab's document, its PyTorch data file): objects, arrays, escaped
// strings, round-trip numbers (core/base/format.hpp), non-finite numbers as null. No JSON library: nlohmann-json
// costs ~25 KB of wasm.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace rv {

class JsonWriter {
 public:
  // spaced: ", " and ": " between items, as Python's json.dumps writes (the lab's document); else none (state()).
  explicit JsonWriter(bool spaced = false) : comma_(spaced ? ", " : ","), colon_(spaced ? ": " : ":") {}
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const char* name);
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

 private:
  void separate();
  const char* comma_;
  const char* colon_;
  std::string out_;
  bool need_comma_ = false;
};

}  // namespace rv
