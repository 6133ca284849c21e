// A minimal JSON writer for state(): objects, arrays, strings, round-trip numbers. The app avoids
// a JSON library to keep the web build small (nlohmann-json costs ~25 KB of wasm).
#pragma once
#include <string>
#include <vector>

namespace rv {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const char* name);
  JsonWriter& value(double v);  // non-finite numbers become null: JSON has no NaN
  JsonWriter& value(long long v);
  JsonWriter& value(int v) { return value((long long)v); }
  JsonWriter& value(bool v);
  JsonWriter& value(const std::string& v);
  JsonWriter& value(const char* v) { return value(std::string(v)); }
  JsonWriter& null();
  JsonWriter& raw(const std::string& json);  // an already-written JSON value (core's lab_json)
  JsonWriter& values(const double* v, int n);
  JsonWriter& values(const std::vector<std::string>& v);
  const std::string& str() const { return out_; }

 private:
  void separate();
  std::string out_;
  bool need_comma_ = false;
};

}  // namespace rv
