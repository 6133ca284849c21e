// FieldReader: type, finiteness, integrality and length checks on the members of one JSON object.
#include "core/base/json_fields.hpp"

#include "core/base/constants.hpp"
#include "core/base/format.hpp"

#include <cmath>

namespace rv {
namespace {
using Kind = JsonValue::Kind;

// How a non-finite number was written: the tokens NaN, Infinity, -Infinity or the same words as strings (Python's
// json.dumps writes the tokens; other writers quote them). nullptr for anything else.
const char* nonfinite_word(const JsonValue& v) {
  if (v.kind == Kind::Number && !std::isfinite(v.number))
    return std::isnan(v.number) ? "NaN" : (v.number > 0 ? "Infinity" : "-Infinity");
  if (v.kind == Kind::String && (v.string == "NaN" || v.string == "Infinity" || v.string == "-Infinity"))
    return v.string.c_str();
  return nullptr;
}
}  // namespace

const char* json_kind_word(const JsonValue& v) {
  switch (v.kind) {
    case Kind::Null:
      return "null";
    case Kind::String:
      return "a string";
    case Kind::Boolean:
      return "a boolean";
    case Kind::Array:
      return "an array";
    case Kind::Object:
      return "an object";
    default:
      return "a number";
  }
}

std::optional<long long> as_integer(const JsonValue& v) {
  if (v.kind != Kind::Number) return std::nullopt;
  if (v.integer) return v.exact;  // nullopt past long long's range
  const double x = v.number;
  if (std::isfinite(x) && x == std::floor(x) && std::abs(x) <= kExactWhole) return static_cast<long long>(x);
  return std::nullopt;
}

std::string FieldReader::name(const char* key) const {
  return names_ == Names::quoted ? "\"" + prefix_ + key + "\"" : prefix_ + key;
}

const JsonValue* FieldReader::present(const char* key) const {
  const JsonValue* v = j_.find(key);  // nullptr unless j_ is an object holding key
  return (v && v->kind != Kind::Null) ? v : nullptr;
}

bool FieldReader::missing(const char* key, bool required) {
  if (present(key)) return false;
  if (required) fail("missing required field " + name(key));
  return true;
}

const JsonValue* FieldReader::of_kind(const char* key, Kind kind, const char* must) {
  const JsonValue* v = present(key);
  if (v && v->kind != kind) {
    fail(name(key) + must + json_kind_word(*v));
    return nullptr;
  }
  return v;
}

std::optional<double> FieldReader::optional_number(const char* key) {
  const JsonValue* v = present(key);
  if (!v) return std::nullopt;
  if (const char* word = nonfinite_word(*v)) {
    fail(name(key) + " must be a finite number, got " + word);
    return std::nullopt;
  }
  if (!of_kind(key, Kind::Number, " must be a number, got ")) return std::nullopt;
  return v->number;
}

std::optional<long long> FieldReader::optional_integer(const char* key) {
  const JsonValue* v = present(key);
  const std::optional<double> x = optional_number(key);
  if (!x) return std::nullopt;
  if (auto i = as_integer(*v)) return i;
  if (v->integer || std::fabs(*x) > kExactWhole)  // an integer token past long long, or a whole double past 2^53
    fail(name(key) + (v->integer ? " is too large" : " is too large, got " + format_number(*x)));
  else
    fail(name(key) + " must be an integer, got " + format_number(*x));
  return std::nullopt;
}

std::optional<bool> FieldReader::optional_boolean(const char* key) {
  const JsonValue* v = of_kind(key, Kind::Boolean, " must be true or false, got ");
  return v ? std::optional<bool>(v->boolean) : std::nullopt;
}

std::optional<std::string> FieldReader::optional_string(const char* key) {
  const JsonValue* v = of_kind(key, Kind::String, " must be a string, got ");
  return v ? std::optional<std::string>(v->string) : std::nullopt;
}

std::optional<std::vector<const JsonValue*>> FieldReader::entries(const char* key, std::size_t max_len,
                                                                  const char* must) {
  const JsonValue* v = of_kind(key, Kind::Array, must);
  if (!v) return std::nullopt;
  if (v->array.size() > max_len) {
    fail(name(key) + " has " + std::to_string(v->array.size()) + " entries, more than the limit " +
         std::to_string(max_len));
    return std::nullopt;
  }
  std::vector<const JsonValue*> out;
  out.reserve(v->array.size());
  for (const JsonValue& e : v->array) out.push_back(&e);
  return out;
}

std::optional<std::vector<double>> FieldReader::optional_numbers(const char* key, std::size_t max_len) {
  auto es = entries(key, max_len, " must be an array of numbers, got ");
  if (!es) return std::nullopt;
  std::vector<double> out;
  out.reserve(es->size());
  for (const JsonValue* e : *es) {
    if (e->kind != Kind::Number || !std::isfinite(e->number)) {
      fail(name(key) + (e->kind != Kind::Number ? " must contain only numbers, got " + std::string(json_kind_word(*e))
                                                : " must contain only finite numbers"));
      return std::nullopt;
    }
    out.push_back(e->number);
  }
  return out;
}

std::optional<std::vector<std::string>> FieldReader::optional_strings(const char* key, std::size_t max_len) {
  auto es = entries(key, max_len, " must be an array of strings, got ");
  if (!es) return std::nullopt;
  std::vector<std::string> out;
  for (const JsonValue* e : *es) {
    if (e->kind != Kind::String) {
      fail(name(key) + " must contain only strings, got " + json_kind_word(*e));
      return std::nullopt;
    }
    out.push_back(e->string);
  }
  return out;
}

long long FieldReader::integer(const char* key, std::optional<long long> fallback) {
  if (missing(key, !fallback)) return fallback.value_or(0);
  return optional_integer(key).value_or(0);
}

double FieldReader::number(const char* key, std::optional<double> fallback) {
  if (missing(key, !fallback)) return fallback.value_or(0.0);
  return optional_number(key).value_or(0.0);
}

bool FieldReader::boolean(const char* key, bool fallback) {
  return optional_boolean(key).value_or(fallback);
}

std::string FieldReader::string(const char* key, std::optional<std::string> fallback) {
  if (missing(key, !fallback)) return fallback.value_or("");
  return optional_string(key).value_or("");
}

std::vector<double> FieldReader::numbers(const char* key, std::optional<std::size_t> length, std::size_t max_len) {
  if (missing(key, true)) return {};
  auto x = optional_numbers(key, max_len);
  if (!x) return {};
  if (length && x->size() != *length) {
    fail(name(key) + " must have " + std::to_string(*length) + " entries, got " + std::to_string(x->size()));
    return {};
  }
  return std::move(*x);
}

std::vector<long long> FieldReader::integers(const char* key, std::size_t max_len) {
  if (missing(key, true)) return {};
  auto es = entries(key, max_len, " must be an array of integers, got ");
  if (!es) return {};
  std::vector<long long> out;
  for (const JsonValue* e : *es) {
    auto i = as_integer(*e);
    if (!i) {
      fail(name(key) + " must contain only integers");
      return {};
    }
    out.push_back(*i);
  }
  return out;
}

const JsonValue* FieldReader::object(const char* key) {
  return of_kind(key, Kind::Object, " must be an object or null, got ");
}

const JsonValue* FieldReader::array(const char* key, const std::string& what) {
  if (missing(key, true)) return nullptr;
  const JsonValue* v = present(key);
  if (v->kind != Kind::Array) {
    fail(what);
    return nullptr;
  }
  return v;
}

}  // namespace rv
