// Named model presets: the positional-encoding fields of real published Hugging Face config.json files.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/hf_config.hpp"

namespace rv {

struct Preset {
  const char* name;     // lower case, dots and dashes: "llama-3.1-8b"
  const char* source;   // the Hugging Face repository the values come from
  const char* fixture;  // tests/fixtures/configs/<fixture> holds the full config.json, "" when there is none
  HfConfig (*config)();
};

// Every preset, in display order ("lesson" first).
const std::vector<Preset>& presets();
const Preset* find_preset(std::string_view name);

// The preset's config run through derive_model; BadRequest for an unknown name (listing the known ones).
Expected<ModelInfo> preset_model(std::string_view name, std::optional<double> seq_len = std::nullopt);

}  // namespace rv
