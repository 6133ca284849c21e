// A small strict JSON reader (RFC 8259, plus the NaN/Infinity tokens Python writes) into a plain DOM; no exceptions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/error.hpp"

namespace rv {

constexpr std::size_t kMaxJsonBytes = 8u << 20;  // 8 MiB: a request line or a config.json
constexpr int kMaxJsonDepth = 64;                // nesting of [ and {

struct JsonValue {
  enum class Kind : unsigned char { Null, Boolean, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  bool integer = false;  // a number token written without '.', 'e' or 'E'
  double number = 0.0;   // the tokens NaN, Infinity and -Infinity give the non-finite doubles
  // An integer token within long long's range, exactly (number holds it rounded to a double past 2^53).
  std::optional<long long> exact;
  std::string string;  // UTF-8
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;  // members in text order, duplicate keys kept

  // The last member named key (Python's json keeps the last duplicate); nullptr when there is none or this is
  // not an object. A member whose value is null is found.
  const JsonValue* find(std::string_view key) const;
};

// BadRequest "JSON text of N bytes is over the limit of M bytes" (checked first), "malformed JSON at line L,
// column C: expected ..., got ..." (columns count bytes from 1), or "JSON nests deeper than the limit of D levels
// at line L, column C". Numbers beyond the range of a double are malformed; strings must be UTF-8.
Expected<JsonValue> parse_json(std::string_view text, std::size_t max_bytes = kMaxJsonBytes,
                               int max_depth = kMaxJsonDepth);

}  // namespace rv
