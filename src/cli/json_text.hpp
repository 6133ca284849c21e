// A request line -> core's JsonValue, with the size and depth limits and Python's NaN/Infinity tokens as strings;
// a JsonValue written back as the protocol spells JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/base/error.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/json_value.hpp"
#include "core/base/json_writer.hpp"

namespace rv::cli {

// BadRequest when the text is longer than max_bytes or nests deeper than max_depth (checked before parsing,
// so a hostile line can neither exhaust memory in the DOM nor the stack in the recursive parser).
std::optional<Error> check_json_text(std::string_view text, std::size_t max_bytes = kMaxJsonBytes,
                                     int max_depth = kMaxJsonDepth);

// Python's json.dumps writes NaN, Infinity and -Infinity; JSON has no such literals, and a number literal past a
// double's range (1e400) makes the parser fail without naming its field. Returns the text with those bare tokens
// (outside strings) turned into the strings "NaN", "Infinity", "-Infinity" (an overflowing literal: the infinity of
// its sign), or nullopt if none were found, so a reader can name the field holding one.
std::optional<std::string> quote_nonfinite_literals(std::string_view text);

// Parse JSON text with the checks above (a leading UTF-8 byte order mark is skipped): core's parse_json, then
// quote_nonfinite_literals when that fails; every non-finite number becomes the string "NaN", "Infinity" or
// "-Infinity" (so a field holding one is "not a number"), and the integer token -0 the number 0. BadRequest with
// the parser's message ("malformed JSON at line L, column C: ...") otherwise.
Expected<JsonValue> parse_json_text(std::string_view text, std::size_t max_bytes = kMaxJsonBytes);

// The writer of every response line: compact, doubles as float tokens (1.0, 1e-05; docs/cli.md).
inline JsonWriter response_writer() {
  return JsonWriter(false, true);
}

// A parsed value written back (run-export's request.json, a refused entry in a message): integer tokens as integers,
// other numbers as float tokens; of duplicate keys, the last value at the first one's place.
void write_json(JsonWriter& w, const JsonValue& v);
std::string json_text(const JsonValue& v);

}  // namespace rv::cli
