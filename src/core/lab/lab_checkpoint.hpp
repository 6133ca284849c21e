// A trained lab decoder as a checkpoint (README "The lab's saved weights"): model.safetensors with the decoder's own
// tensor names (tok_emb, pos_emb, l{j}.wq, ...; float32) and a config.json saying what was trained, so the
// checkpoint reader and the learned_table op open the lab's really trained tables like any model's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/lab/lab.hpp"
#include "core/weights/safetensors.hpp"

namespace rv {

// model.safetensors's bytes: every weight of the trained decoder by its contract name, float32, with metadata
// {"format": "pt", "ropeviz": "lab"}.
Expected<std::vector<std::uint8_t>> lab_safetensors(const LabTrained& t);
inline constexpr const char* kLabModelType = "ropeviz_lab";  // the model_type of the lab's saved config.json
// config.json: {"model_type": "ropeviz_lab", "position": method, "vocab", "d_model", "heads", "layers", "d_ff",
// "max_position" (learned), "base" and "pairing" (rope), "task", "train_len", "trained_positions", "seed",
// "steps_run"}.
std::string lab_config_json(const LabTrained& t, const LabOptions& o, int steps_run);

}  // namespace rv
