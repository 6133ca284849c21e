// A request line -> nlohmann JSON, with core's size and depth limits and Python's NaN/Infinity tokens as strings.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/error.hpp"
#include "core/base/json_value.hpp"

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

// Parse JSON text with the checks above and the NaN/Infinity fallback; BadRequest with the parser's message.
Expected<nlohmann::ordered_json> parse_json_text(std::string_view text, std::size_t max_bytes = kMaxJsonBytes);

}  // namespace rv::cli
