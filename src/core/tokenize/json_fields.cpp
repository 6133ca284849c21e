// Reading tokenizer.json's objects (json_fields.hpp).
#include "core/tokenize/json_fields.hpp"

#include <cmath>

namespace rv::tokenize {

const JsonValue* Fields::find(std::string_view key) const {
  const JsonValue* v = object_.find(key);
  return v && v->kind != JsonValue::Kind::Null ? v : nullptr;
}

bool Fields::boolean(std::string_view key, bool fallback) {
  const JsonValue* v = find(key);
  if (!v) return fallback;
  if (v->kind != JsonValue::Kind::Boolean) fail("\"" + at(key) + "\" must be true or false");
  return v->boolean;
}

long long Fields::integer(std::string_view key, std::optional<long long> fallback) {
  const JsonValue* v = find(key);
  if (!v && fallback) return *fallback;
  if (!v) return fail("missing required field \"" + at(key) + "\""), 0;
  if (v->kind != JsonValue::Kind::Number || !v->integer || std::fabs(v->number) > 2147483647.0)
    return fail("\"" + at(key) + "\" must be an integer of at most 2^31 - 1"), 0;
  return (long long)v->number;
}

std::string Fields::string(std::string_view key, std::optional<std::string> fallback) {
  const JsonValue* v = find(key);
  if (!v && fallback) return *fallback;
  if (!v) return fail("missing required field \"" + at(key) + "\""), std::string();
  if (v->kind != JsonValue::Kind::String) return fail("\"" + at(key) + "\" must be a string"), std::string();
  return v->string;
}

std::optional<std::string> Fields::optional_string(std::string_view key) {
  if (!find(key)) return std::nullopt;
  return string(key);
}

Error unsupported(const std::string& what, const std::string& type, const char* supported) {
  return bad_request("tokenizer.json: the " + what + " type \"" + type + "\" is not supported (" + supported + ")");
}

}  // namespace rv::tokenize
