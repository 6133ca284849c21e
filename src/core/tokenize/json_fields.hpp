// Reading tokenizer.json's objects (internal to core/tokenize): typed fields with defaults, the first problem kept
// as a BadRequest that names the field by its path ("pre_tokenizer.pretokenizers[1].use_regex").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/base/error.hpp"
#include "core/base/json_value.hpp"

namespace rv::tokenize {

class Fields {
 public:
  Fields(const JsonValue& object, std::string path) : object_(object), path_(std::move(path)) {}

  const JsonValue* find(std::string_view key) const;  // nullptr when absent or null
  bool boolean(std::string_view key, bool fallback);
  long long integer(std::string_view key, std::optional<long long> fallback = std::nullopt);
  std::string string(std::string_view key, std::optional<std::string> fallback = std::nullopt);
  std::optional<std::string> optional_string(std::string_view key);
  const std::string& path() const { return path_; }
  std::string at(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

  void fail(std::string message) {
    if (!error) error = bad_request("tokenizer.json: " + std::move(message));
  }
  std::optional<Error> error;

 private:
  const JsonValue& object_;
  std::string path_;
};

// "the normalizer type \"Lowercase\" is not supported (NFC, ...)": an unsupported component, by its type name.
Error unsupported(const std::string& what, const std::string& type, const char* supported);

}  // namespace rv::tokenize
