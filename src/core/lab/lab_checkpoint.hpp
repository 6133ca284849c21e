// A trained lab decoder as a checkpoint (docs/lab.md): model.safetensors with the decoder's own
// tensor names (tok_emb, pos_emb, l{j}.wq, ...; float32) and a config.json saying what was trained, so the
// checkpoint reader and the learned_table op open the lab's really trained tables like any model's; and read back.
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
// lab_safetensors' bytes read back: the weights of the decoder `config` (method config.position) exactly, float32 bit
// for bit (a Web Worker's run handed to the page). BadRequest naming what is wrong: a tensor missing or of another
// shape or dtype, a malformed file.
Expected<LabTrained> read_lab_safetensors(const std::vector<std::uint8_t>& bytes, const DecoderConfig& config,
                                          int steps_run);
inline constexpr const char* kLabModelType = "ropeviz_lab";  // the model_type of the lab's saved config.json
// config.json: {"model_type": "ropeviz_lab", "position": method, "vocab", "d_model", "heads", "layers", "d_ff",
// "max_position" (learned), "base" and "pairing" (rope), "task", "train_len", "trained_positions", "seed",
// "steps_run"}.
std::string lab_config_json(const LabTrained& t, const LabOptions& o, int steps_run);

}  // namespace rv
