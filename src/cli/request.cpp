// Field access for JSON requests without exceptions: type, finiteness, integrality and length checks.
#include "cli/request.hpp"
#include "core/base/constants.hpp"

#include <cmath>
#include <limits>

namespace rv::cli {

std::optional<long long> as_integer(const json& v) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() &&
        v.get<unsigned long long>() > static_cast<unsigned long long>(std::numeric_limits<long long>::max()))
      return std::nullopt;
    return v.get<long long>();
  }
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (std::isfinite(x) && x == std::floor(x) && std::abs(x) <= kExactWhole) return static_cast<long long>(x);
  }
  return std::nullopt;
}

const json* Request::find(const char* key) const {
  if (!j_.is_object()) return nullptr;
  auto it = j_.find(key);
  return it == j_.end() ? nullptr : &*it;
}

bool Request::has(const char* key) const {
  return find(key) != nullptr;
}

long long Request::integer(const char* key, std::optional<long long> fallback) {
  const json* v = find(key);
  if (!v || v->is_null()) {
    if (!fallback) fail("missing required field " + q(key));
    return fallback.value_or(0);
  }
  if (!v->is_number()) {
    fail(q(key) + " must be a number");
    return 0;
  }
  if (v->is_number_float() && !std::isfinite(v->get<double>())) {
    fail(q(key) + " must be finite");
    return 0;
  }
  auto i = as_integer(*v);
  if (!i) {
    fail(q(key) + " must be an integer");
    return 0;
  }
  return *i;
}

double Request::number(const char* key, std::optional<double> fallback) {
  const json* v = find(key);
  if (!v || v->is_null()) {
    if (!fallback) fail("missing required field " + q(key));
    return fallback.value_or(0.0);
  }
  if (!v->is_number()) {
    fail(q(key) + " must be a number");
    return 0.0;
  }
  const double x = v->get<double>();
  if (!std::isfinite(x)) {
    fail(q(key) + " must be finite");
    return 0.0;
  }
  return x;
}

std::optional<double> Request::optional_number(const char* key) {
  const json* v = find(key);
  if (!v || v->is_null()) return std::nullopt;
  return number(key);
}

bool Request::boolean(const char* key, bool fallback) {
  const json* v = find(key);
  if (!v || v->is_null()) return fallback;
  if (!v->is_boolean()) {
    fail(q(key) + " must be true or false");
    return fallback;
  }
  return v->get<bool>();
}

std::string Request::string(const char* key, std::optional<std::string> fallback) {
  const json* v = find(key);
  if (!v || v->is_null()) {
    if (!fallback) fail("missing required field " + q(key));
    return fallback.value_or("");
  }
  if (!v->is_string()) {
    fail(q(key) + " must be a string");
    return "";
  }
  return v->get<std::string>();
}

std::vector<double> Request::numbers(const char* key, std::optional<std::size_t> length, std::size_t max_len) {
  std::vector<double> out;
  const json* v = find(key);
  if (!v || v->is_null()) {
    fail("missing required field " + q(key));
    return out;
  }
  if (!v->is_array()) {
    fail(q(key) + " must be an array of numbers");
    return out;
  }
  if (v->size() > max_len) {
    fail(q(key) + " has " + std::to_string(v->size()) + " entries, more than the limit " + std::to_string(max_len));
    return out;
  }
  if (length && v->size() != *length) {
    fail(q(key) + " must have " + std::to_string(*length) + " entries, got " + std::to_string(v->size()));
    return out;
  }
  out.reserve(v->size());
  for (const json& e : *v) {
    if (!e.is_number()) {
      fail(q(key) + " must contain only numbers");
      return {};
    }
    const double x = e.get<double>();
    if (!std::isfinite(x)) {
      fail(q(key) + " must contain only finite numbers");
      return {};
    }
    out.push_back(x);
  }
  return out;
}

std::vector<long long> Request::integers(const char* key, std::size_t max_len) {
  std::vector<long long> out;
  const json* v = find(key);
  if (!v || v->is_null()) {
    fail("missing required field " + q(key));
    return out;
  }
  if (!v->is_array()) {
    fail(q(key) + " must be an array of integers");
    return out;
  }
  if (v->size() > max_len) {
    fail(q(key) + " has " + std::to_string(v->size()) + " entries, more than the limit " + std::to_string(max_len));
    return out;
  }
  for (const json& e : *v) {
    auto i = e.is_number() ? as_integer(e) : std::nullopt;
    if (!i) {
      fail(q(key) + " must contain only integers");
      return {};
    }
    out.push_back(*i);
  }
  return out;
}

const json* Request::object(const char* key) {
  const json* v = find(key);
  if (!v || v->is_null()) return nullptr;
  if (!v->is_object()) {
    fail(q(key) + " must be an object");
    return nullptr;
  }
  return v;
}

const json* Request::array(const char* key, const std::string& what) {
  const json* v = find(key);
  if (!v || v->is_null()) {
    fail("missing required field " + q(key));
    return nullptr;
  }
  if (!v->is_array()) {
    fail(what);
    return nullptr;
  }
  return v;
}

}  // namespace rv::cli
