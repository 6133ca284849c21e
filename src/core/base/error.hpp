// Typed errors ("IndexError: index 100 is out of bounds ...") and a small Expected<T>; nothing in core throws.
#pragma once

#include <cassert>
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace rv {

struct Error {
  std::string type;     // "IndexError", "BadRequest", ...
  std::string message;  // "index 100 is out of bounds for dimension 0 with size 10"
  std::string full() const { return type + ": " + message; }
};

inline Error bad_request(std::string message) {
  return Error{"BadRequest", std::move(message)};
}

// PyTorch's message for tensor[index] with index outside [-size, size). ropeviz's learned lookup also uses it for
// negative indices, which it refuses (as nn.Embedding does); PyTorch tensor indexing itself would wrap -1 to the
// last row (core/encodings/frameworks.hpp lists each framework's behaviour).
inline Error index_error(long long index, long long size, int dim = 0) {
  return Error{"IndexError", "index " + std::to_string(index) + " is out of bounds for dimension " +
                                 std::to_string(dim) + " with size " + std::to_string(size)};
}

template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Expected(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

  bool has_value() const { return v_.index() == 0; }
  bool ok() const { return has_value(); }
  explicit operator bool() const { return has_value(); }

  const T& value() const& {
    assert(has_value());
    return *std::get_if<0>(&v_);
  }
  T& value() & {
    assert(has_value());
    return *std::get_if<0>(&v_);
  }
  T&& value() && {
    assert(has_value());
    return std::move(*std::get_if<0>(&v_));
  }
  const T* operator->() const { return &value(); }
  const T& operator*() const& { return value(); }
  T value_or(T fallback) const { return has_value() ? value() : std::move(fallback); }

  const Error& error() const {
    assert(!has_value());
    return *std::get_if<1>(&v_);
  }

 private:
  std::variant<T, Error> v_;
};

}  // namespace rv
