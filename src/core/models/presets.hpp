// Named model presets: published Hugging Face config.json fields, read by the config.json reader (json_config).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/models/hf_config.hpp"

namespace rv {

struct Preset {
  const char* name;         // lower case, dots and dashes: "llama-3.1-8b"
  const char* source;       // the Hugging Face repository the values come from
  const char* fixture;      // tests/fixtures/configs/<fixture> holds the full config.json, "" when there is none
  const char* config_json;  // the published config.json's positional-encoding fields, read by parse_hf_config
  std::optional<Pairing> pairing = std::nullopt;  // not a config.json field: only the lesson's toy sets it
};

// Every preset, in display order ("lesson" first).
const std::vector<Preset>& presets();
const Preset* find_preset(std::string_view name);

// The preset's config_json through parse_hf_config (the reader of dropped and CLI configs), plus its pairing;
// BadRequest naming the preset if the row does not parse (a test parses every row).
Expected<HfConfig> preset_config(const Preset& p);

// The preset's config run through derive_model; BadRequest for an unknown name (listing the known ones).
Expected<ModelInfo> preset_model(std::string_view name, std::optional<double> seq_len = std::nullopt);

}  // namespace rv
