// JSON text limits and the config.json -> HfConfig reader (nlohmann-json; target rv_json_config, for CLI and app).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/hf_config.hpp"

namespace rv {

constexpr std::size_t kMaxJsonBytes = 8u << 20;  // 8 MiB: a request line or a config.json
constexpr int kMaxJsonDepth = 64;                // nesting of [ and {

// BadRequest when the text is longer than max_bytes or nests deeper than max_depth (checked before parsing,
// so a hostile line can neither exhaust memory in the DOM nor the stack in the recursive parser).
std::optional<Error> check_json_text(std::string_view text, std::size_t max_bytes = kMaxJsonBytes,
                                     int max_depth = kMaxJsonDepth);

// Python's json.dumps writes NaN, Infinity and -Infinity; JSON has no such literals. Returns the text with those
// bare tokens (outside strings) turned into the strings "NaN", "Infinity", "-Infinity", or nullopt if none were found,
// so a reader can name the field holding one.
std::optional<std::string> quote_nonfinite_literals(std::string_view text);

// Parse JSON text with the checks above and the NaN/Infinity fallback; BadRequest with the parser's message.
Expected<nlohmann::ordered_json> parse_json_text(std::string_view text, std::size_t max_bytes = kMaxJsonBytes);

// The positional-encoding fields of a config.json object, type-checked: a wrong type is a BadRequest naming the
// field. Legacy names count: n_embd, n_head, n_positions (and DistilBERT's dim, n_heads). Unknown fields are ignored. A multimodal config without
// hidden_size/n_embd/head_dim at the top level is read from its "text_config" object.
Expected<HfConfig> hf_config_from_json(const nlohmann::ordered_json& j);
Expected<HfConfig> parse_hf_config(std::string_view text);

}  // namespace rv
