// Where each model type keeps its token embedding and layer l's attention weights (README "Real weights"), shared
// by rope_usage and real_scores.
#pragma once

#include <string>
#include <vector>

#include "core/base/matrix.hpp"
#include "core/models/hf_config.hpp"
#include "core/weights/checkpoint.hpp"

namespace rv {

enum class FusedQkv { None, Phi3, NeoX };  // phi3: [q; k; v] rows; gpt_neox: per head [q; k; v] blocks

struct AttentionLayout {
  const char* type;
  const char* q;  // "{l}" stands for the layer
  const char* k;  // empty when fused with q
  const char* norm;
  const char* q_norm = "";  // per-head-dim RMSNorms after the projections, or empty
  const char* k_norm = "";
  FusedQkv fused = FusedQkv::None;
  bool gemma = false;       // norms scale by 1 + weight, embeddings by sqrt(hidden_size)
  bool layer_norm = false;  // LayerNorm with bias (phi, stablelm, gpt_neox, gptj), else RMSNorm
  const char* embed = "model.embed_tokens.weight";
  double eps = 1e-6;  // transformers' default rms_norm_eps / layer_norm_eps for the type
};

// The layout of a model type, or nullptr; the known types, comma-separated, for the refusal.
const AttentionLayout* attention_layout(const std::string& model_type);
std::string attention_layout_types();
// A layout name at layer l; a tensor's bias beside it (".weight" -> ".bias").
std::string at_layer(const char* pattern, int l);
std::string bias_of(const std::string& weight);

// A config read for the weight ops: its layout, its RoPE (section "model" of the README's protocol) and its heads;
// a BadRequest naming what is missing, and `op` with the types it knows for another model_type.
struct AttentionModel {
  std::string type;
  const AttentionLayout* layout = nullptr;
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
