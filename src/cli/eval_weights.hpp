// The eval protocol's checkpoint ops (docs/real-weights.md): a safetensors checkpoint's tensor
// list, the analysis of the learned position table it holds, and which RoPE pairs its attention weights feed.
#pragma once

#include <memory>

#include "core/base/json_fields.hpp"
#include "core/base/json_writer.hpp"
#include "core/models/hf_config.hpp"
#include "core/weights/checkpoint.hpp"

namespace rv::tokenize {
struct Tokenizer;
}

namespace rv::cli {

// The ops on a model's weights: "config" or "preset" (required) and the checkpoint ("file" or "index").
struct ModelCheckpoint {
  HfConfig config;
  Checkpoint checkpoint;
  // The tokenizer.json that came with the checkpoint (the page's load), used for "text" when a request names none.
  std::shared_ptr<const tokenize::Tokenizer> tokenizer;
};
Expected<ModelCheckpoint> model_checkpoint(FieldReader& r);

// {"op":"weights","file":PATH} or {"op":"weights","index":PATH}
// -> {"header_bytes":N,"file_bytes":S,"metadata":{...},"tensors":[{"name","dtype","shape","file"},...]}
std::optional<Error> op_weights(FieldReader& r, JsonWriter& w);
// {"op":"learned_table","file"|"index":PATH, optional "tensor", "config"|"preset", "offset"}
// -> {"tensor","dtype","rows","dim","offset","row_norm","neighbour_cos","cos_by_offset","singular_values","energy",
//     "rank90","rank99","components"}
std::optional<Error> op_learned_table(FieldReader& r, JsonWriter& w);
// {"op":"rope_usage","file"|"index":PATH,"config"|"preset", optional "layers":[...]}
// ->
// {"model_type","layers","heads","kv_heads","head_dim","rotary_dims","pairing","wavelength","q","k","q_mean","k_mean"}
std::optional<Error> op_rope_usage(FieldReader& r, JsonWriter& w);
// {"op":"real_scores","file"|"index":PATH,"config"|"preset","head":h,"token":t,"key_token":u,"offsets":K}
// -> {"offsets":[0..K],"score":[K+1]}
std::optional<Error> op_real_scores(FieldReader& r, JsonWriter& w);

}  // namespace rv::cli
