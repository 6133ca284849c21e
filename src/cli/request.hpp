// Typed, non-throwing field access for one JSON request: the first problem becomes a BadRequest naming the field.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.hpp"

namespace rv::cli {

using json = nlohmann::ordered_json;  // keeps keys in insertion order: {"error":{"type":...,"message":...}}

// Usage: read every field, then check `error` once; after an error, getters return harmless defaults.
class Request {
 public:
  // prefix names a nested object in messages, e.g. "scaling." -> "missing required field \"scaling.factor\""
  explicit Request(const json& j, std::string prefix = "") : j_(j), prefix_(std::move(prefix)) {}

  bool has(const char* key) const;
  const json* value(const char* key) const { return find(key); }  // any kind, unchecked; nullptr if absent
  long long integer(const char* key, std::optional<long long> fallback = std::nullopt);
  double number(const char* key, std::optional<double> fallback = std::nullopt);
  bool boolean(const char* key, bool fallback);
  std::optional<double> optional_number(const char* key);
  std::string string(const char* key, std::optional<std::string> fallback = std::nullopt);
  // An array of finite numbers; `length` (if given) must match exactly; never more than max_len entries.
  std::vector<double> numbers(const char* key, std::optional<std::size_t> length, std::size_t max_len);
  std::vector<long long> integers(const char* key, std::size_t max_len);
  const json* object(const char* key);  // nullptr if absent (error if present but not an object)
  // A required array, unchecked inside; nullptr with the error set if absent or not an array (`what` says why).
  const json* array(const char* key, const std::string& what);

  void fail(std::string message) {
    if (!error) error = bad_request(std::move(message));
  }
  std::optional<Error> error;

 private:
  const json* find(const char* key) const;
  std::string q(const char* key) const { return "\"" + prefix_ + key + "\""; }  // quoted field name
  const json& j_;
  std::string prefix_;
};

// One finite JSON number as an exact integer, if it is one.
std::optional<long long> as_integer(const json& v);

}  // namespace rv::cli
