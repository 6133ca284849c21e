// Typed, non-throwing field access for one JSON object: the first problem becomes a BadRequest naming the field.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/json_value.hpp"

namespace rv {

// The one field reader of requests (the CLI's ops) and of config.json. Usage: read every field, then check `error`
// once; after an error, getters return harmless defaults. Messages name the field and say what was found:
// "missing required field \"d_head\"", "\"x\" must be an array of numbers, got an object" (docs/cli.md), or, with
// bare names (config.json's fields, as docs/real-weights.md shows them), "rope_theta must be a finite number, got NaN".
// A member whose value is null counts as absent; of duplicate keys the last is read.
class FieldReader {
 public:
  enum class Names { quoted, bare };
  // prefix names a nested object in messages, e.g. "scaling." -> "missing required field \"scaling.factor\""
  explicit FieldReader(const JsonValue& j, std::string prefix = "", Names names = Names::quoted)
      : j_(j), prefix_(std::move(prefix)), names_(names) {}

  bool has(const char* key) const { return value(key) != nullptr; }       // present, even as null
  const JsonValue* value(const char* key) const { return j_.find(key); }  // any kind, unchecked; nullptr if absent

  // Absent (or null) gives nullopt; present with the wrong kind gives nullopt and the error.
  std::optional<long long> optional_integer(const char* key);
  std::optional<double> optional_number(const char* key);
  std::optional<bool> optional_boolean(const char* key);
  std::optional<std::string> optional_string(const char* key);
  std::optional<std::vector<double>> optional_numbers(const char* key, std::size_t max_len);
  std::optional<std::vector<std::string>> optional_strings(const char* key, std::size_t max_len);

  // Required unless a fallback is given.
  long long integer(const char* key, std::optional<long long> fallback = std::nullopt);
  double number(const char* key, std::optional<double> fallback = std::nullopt);
  bool boolean(const char* key, bool fallback);
  std::string string(const char* key, std::optional<std::string> fallback = std::nullopt);
  // An array of finite numbers; `length` (if given) must match exactly; never more than max_len entries.
  std::vector<double> numbers(const char* key, std::optional<std::size_t> length, std::size_t max_len);
  std::vector<long long> integers(const char* key, std::size_t max_len);
  const JsonValue* object(const char* key);  // nullptr if absent (error if present but not an object)
  // A required array, unchecked inside; nullptr with the error set if absent or not an array (`what` says why).
  const JsonValue* array(const char* key, const std::string& what);

  void fail(std::string message) {
    if (!error) error = bad_request(std::move(message));
  }
  std::string name(const char* key) const;  // the field as messages write it
  std::optional<Error> error;

 private:
  const JsonValue* present(const char* key) const;  // nullptr if absent or null
  bool missing(const char* key, bool required);     // absent: fails when required
  const JsonValue* of_kind(const char* key, JsonValue::Kind kind, const char* must);
  std::optional<std::vector<const JsonValue*>> entries(const char* key, std::size_t max_len, const char* must);
  const JsonValue& j_;
  std::string prefix_;
  Names names_;
};

// "a string", "an array", "null", ...: what a message says was found.
const char* json_kind_word(const JsonValue& v);

// One JSON number as an exact integer, if it is one: an integer token within long long's range, or a finite whole
// number of at most 2^53 written with a point or an exponent (4.0, 1e3).
std::optional<long long> as_integer(const JsonValue& v);

}  // namespace rv
