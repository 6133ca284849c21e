// Where each model type keeps its token embedding and layer l's attention weights (docs/real-weights.md), shared
// by rope_usage and real_scores.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/matrix.hpp"
#include "core/weights/family.hpp"
#include "core/models/hf_config.hpp"
#include "core/weights/checkpoint.hpp"

namespace rv {

// Layer l's attention as the weight analyses read it, from the family's row (core/weights/family.hpp).
struct AttentionLayout {
  std::string q;  // "{l}" stands for the layer; a fused projection's whole name
  std::string k;  // empty when fused with q
  std::string norm;
  std::string q_norm, k_norm;  // per-head-dim RMSNorms after the projections, or empty
  QkvLayout fused = QkvLayout::Separate;  // Separate, Phi3 ([q; k; v] rows) or NeoX (per head [q; k; v] blocks)
  bool gemma = false;                     // norms scale by 1 + weight, embeddings by sqrt(hidden_size)
  bool layer_norm = false;                // LayerNorm with bias (phi, stablelm, starcoder2, gpt_neox, gptj)
  std::string embed;
  double eps = 1e-6;  // transformers' default rms_norm_eps / layer_norm_eps for the type
};

// The layout of a RoPE family whose attention reads one input norm and per-head q/k norms at most (every RoPE row
// of the family table but OLMo 2's), or nullopt; the types it knows, comma-separated, for the refusal.
std::optional<AttentionLayout> attention_layout(const std::string& model_type);
std::string attention_layout_types();
// A layout name at layer l; a tensor's bias beside it (".weight" -> ".bias").
std::string at_layer(std::string_view pattern, int l);
std::string bias_of(const std::string& weight);

// A config read for the weight ops: its layout, its RoPE (the "model" op of docs/cli.md) and its heads;
// a BadRequest naming what is missing, and `op` with the types it knows for another model_type.
struct AttentionModel {
  std::string type;
  AttentionLayout layout;
  RopeModel rope;                       // the model's rope (Gemma 3: its full-attention layers')
  std::optional<RopeModel> rope_local;  // Gemma 3's sliding-attention layers (HfConfig::local), else null
  HfConfig config;                      // which layers slide (is_local_layer)
  int heads = 0;
  // The rope layer l rotates with (rope_local for a sliding layer of Gemma 3).
  const RopeModel& rope_at(int l) const { return is_local_layer(config, l) && rope_local ? *rope_local : rope; }
};
Expected<AttentionModel> attention_model(const HfConfig& config, const char* op);

// A named tensor, or a BadRequest naming it; a 1-D one of `size` entries (+1 when plus_one).
Expected<RowMatrixXd> read_named(Checkpoint& c, const std::string& name);
Expected<Eigen::VectorXd> read_vector(Checkpoint& c, const std::string& name, Eigen::Index size, bool plus_one);

}  // namespace rv
