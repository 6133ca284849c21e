// A Hugging Face config.json reduced to its positional-encoding fields, and what transformers derives from them.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/rope/rope.hpp"

namespace rv {

// config.rope_scaling; every field is optional exactly as in the JSON (absent and null are the same).
struct HfRopeScaling {
  std::optional<std::string> rope_type, type;  // type: the legacy spelling ("su" = longrope)
  std::optional<double> factor, original_max_position_embeddings;
  std::optional<double> beta_fast, beta_slow, attention_factor, mscale, mscale_all_dim;  // yarn
  std::optional<double> low_freq_factor, high_freq_factor;                               // llama3
  std::optional<bool> truncate;                                                          // yarn
  std::optional<std::vector<double>> short_factor, long_factor;                          // longrope
};

// Gemma 3's sliding-attention layers: their own base (rope_local_base_freq, or rope_parameters.sliding_attention's
// rope_theta; 10000 by default) and scaling (only transformers 5's spelling can give them one).
struct HfLocalRope {
  double rope_theta = 10000.0;
  std::optional<HfRopeScaling> rope_scaling;
  std::string theta_key = "rope_local_base_freq", scaling_key;  // where they were read, for messages
};

// The fields of config.json that decide the positional encoding. Legacy names are folded in by the reader:
// n_embd, dim -> hidden_size; n_head, n_heads -> num_attention_heads; n_positions -> max_position_embeddings; and
// transformers 5's rope_parameters -> rope_theta, rope_scaling, partial_rotary_factor (docs/app.md: Real models).
struct HfConfig {
  std::optional<std::string> model_type, position_embedding_type;
  std::optional<long long> hidden_size, num_attention_heads, head_dim;
  std::optional<long long> num_key_value_heads;  // read for rope_usage's check of the key projection
  std::optional<double> rms_norm_eps,
      layer_norm_eps;  // real_scores' input norm (layer_norm_epsilon read as the latter)
  // What the forward pass reads besides (core/infer): the activation (hidden_activation, hidden_act or
  // activation_function), Gemma 2's attention scale and soft caps, the sliding window, Mixtral's experts per token,
  // GPT-NeoX's parallel residual.
  std::optional<std::string> hidden_act;
  std::optional<double> query_pre_attn_scalar, attn_logit_softcapping, final_logit_softcapping;
  std::optional<long long> sliding_window, num_experts_per_tok;
  std::optional<bool> use_parallel_residual;
  std::optional<long long> max_position_embeddings, original_max_position_embeddings;
  std::optional<long long> rotary_dim, qk_rope_head_dim;
  std::optional<double> partial_rotary_factor, rotary_pct, rope_theta, rotary_emb_base;
  std::optional<HfRopeScaling> rope_scaling;
  std::string theta_key = "rope_theta", scaling_key = "rope_scaling";  // where they were read, for messages
  std::optional<HfLocalRope> local;  // sliding-attention layers with a rope of their own (Gemma 3)
  // Which layers slide (Gemma 3): layer_types ("sliding_attention" / "full_attention"), else every layer but each
  // sliding_window_pattern-th (transformers' default 6).
  std::optional<std::vector<std::string>> layer_types;
  std::optional<long long> sliding_window_pattern;
  std::optional<Pairing> pairing;  // not a config.json field: only the lesson's toy preset sets it (interleaved)
};

struct RopeModel {
  int head_dim = 0, rotary_dims = 0;
  double base = 10000.0;
  Pairing pairing = Pairing::HalfSplit;
  std::string rope_type = "default";  // default, linear, dynamic, yarn, longrope, llama3
  Eigen::VectorXd inv_freq;           // [rotary_dims/2], after scaling
  double attention_factor = 1.0;
  // The scaling factor the rope type applied: rope_scaling.factor, 1 without scaling; longrope's is
  // max_position_embeddings / original_max_position_embeddings as transformers computes it (Phi-3.5: 32).
  double factor = 1.0;
  std::optional<long long> max_position_embeddings;
  // The pre-extension length the rope type used (yarn/llama3: rope_scaling's; longrope: top level first);
  // for the others rope_scaling's, else the top level's, else max_position_embeddings.
  std::optional<long long> original_max_position_embeddings;
};

struct AbsoluteModel {
  long long max_position = 0, d = 0, parameters = 0;  // parameters = max_position * d
};

struct ModelInfo {
  std::optional<RopeModel> rope;          // null for learned-position models; Gemma 3: its full-attention layers
  std::optional<RopeModel> rope_local;    // Gemma 3's sliding-attention layers; null for every other model
  std::optional<AbsoluteModel> absolute;  // null for RoPE models
};

// Limits against absurd configs.
constexpr long long kMaxHeadDim = 65536;
constexpr long long kMaxHiddenSize = 1LL << 20;
constexpr long long kMaxHeads = 65536;
constexpr long long kMaxPositions = 1LL << 40;

// True for model types whose positions are a learned table (gpt2, gpt_bigcode, bert, roberta, distilbert, opt)
// or position_embedding_type "absolute".
bool is_learned_position_model(const HfConfig& c);

// True when layer `layer` is a sliding-attention layer with the local rope (HfConfig::local), as transformers'
// Gemma 3 assigns them; false for every layer of a model without one.
bool is_local_layer(const HfConfig& c, int layer);
// The rope layer `layer` rotates with: info.rope_local for a local layer, else info.rope (null for learned tables).
const std::optional<RopeModel>& layer_rope(const HfConfig& c, const ModelInfo& info, int layer);

// The width a learned position table of this model has (or would have): hidden_size, else heads x head_dim.
long long model_width(const HfConfig& c, const ModelInfo& info);
// Derive head_dim, rotary_dims, base, rope_type, pairing and the scaled inv_freq as transformers'
// modeling_rope_utils does; seq_len (dynamic, longrope) is the current sequence length. BadRequest naming the field.
Expected<ModelInfo> derive_model(const HfConfig& c, std::optional<double> seq_len = std::nullopt);

}  // namespace rv
