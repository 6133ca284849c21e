// The config.json -> HfConfig reader over core's JSON DOM (for the app, the CLI and the presets).
#pragma once

#include <string_view>

#include "core/base/error.hpp"
#include "core/base/json_value.hpp"
#include "core/models/hf_config.hpp"

namespace rv {

// The positional-encoding fields of a config.json object, type-checked: a wrong type is a BadRequest naming the
// field. Legacy names count: n_embd, n_head, n_positions (and DistilBERT's dim, n_heads), and transformers 5's
// rope_parameters reads as rope_theta + rope_scaling + partial_rotary_factor (by layer type: Gemma 3's full and
// sliding layers, the latter into HfConfig::local, as rope_local_base_freq is). Unknown fields are ignored.
// A multimodal config without hidden_size/n_embd/dim/head_dim at the top level is read from its "text_config" object.
Expected<HfConfig> hf_config_from_json(const JsonValue& j);

// A config.json file opened in the app (dropped, pasted, --config): the largest published ones are tens of KB, and
// this bounds the parsed tree in the browser's memory (an 8 MiB array of zeros would take ~235 MB).
constexpr std::size_t kMaxConfigFileBytes = 1u << 20;

// parse_json (size and depth limits, NaN/Infinity tokens) then hf_config_from_json.
Expected<HfConfig> parse_hf_config(std::string_view text);

}  // namespace rv
