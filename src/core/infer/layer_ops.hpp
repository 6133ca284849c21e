// The pieces of the forward pass's layers (core/infer/forward.hpp): tensors read as float and checked by shape, the
// norms, the rotation, causal attention one query row at a time with its statistics, one layer of any family's
// block (core/infer/family.hpp), and the NLL.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/weights/family.hpp"
#include "core/infer/forward.hpp"

namespace rv {

// Named tensors as float, each checked against the shape expected (a missing or mis-shaped one is named with it).
struct TensorReader {
  Checkpoint& c;
  Expected<RowMatrixXf> operator()(const std::string& name, const std::vector<long long>& shape) const;
  bool has(const std::string& name) const { return c.find(name) != nullptr; }
  // A tensor's size along axis, or -1 when it is missing: the sizes a family leaves to its weights.
  long long dim(const std::string& name, std::size_t axis) const;
};

// What one layer needs besides its weights.
struct LayerContext {
  const TensorReader& read;
  const ModelFamily& family;
  long long d;
  int heads, kv_heads, head_dim;
  float eps;
  Activation act;
  const std::vector<long long>& positions;
  Residual residual;      // the family's, or GPT-NeoX's sequential one (use_parallel_residual false)
  float scale;            // scores times this (head_dim^-0.5, Gemma 2's query_pre_attn_scalar^-0.5)
  bool divide;            // scores / sqrt(head_dim) instead (GPT-2, GPT-J)
  float softcap;          // Gemma 2's attn_logit_softcapping, 0 for none
  int experts_per_token;  // Mixtral's num_experts_per_tok
  bool drop_rope;         // NoPE at inference: q and k are not rotated (their pairs are still measured)
  int threads;            // heads and row blocks shared out (core/infer/parallel.hpp)
};

// What a pass records besides the NLL, each when asked (ForwardOptions): the attention rows' sums by distance and on
// position 0, the whole probabilities, and the rotated pairs' norms before the rotation.
struct AttentionStats {
  bool by_distance_on = false, sink_on = false, probabilities_on = false, pairs_on = false;
  std::vector<std::vector<std::vector<double>>> by_distance;       // [layer][head][distance]
  std::vector<std::vector<double>> sink;                           // [layer][head]
  std::vector<std::vector<RowMatrixXf>> probabilities;             // [layer][head] -> [T, T], 0 above the diagonal
  std::vector<std::vector<std::vector<double>>> q_pairs, k_pairs;  // [layer][head][pair]
};

// h normed in place by the norm stored under name (".weight", and ".bias" for LayerNorm).
std::optional<Error> apply_norm(const TensorReader& read, const std::string& name, NormKind norm, RowMatrixXf& h,
                                float eps);

// One layer on h [T, d], in place; rope null (a learned table): no rotation; window > 0: keys within the last `window`
// positions only.
std::optional<Error> run_layer(const LayerContext& ctx, int layer, const std::optional<RopeModel>& rope,
                               long long window, RowMatrixXf& h, AttentionStats& stats);

// -log softmax(logits)[target], in float as torch's cross-entropy of float32 logits.
double token_nll(const Eigen::Ref<const Eigen::Matrix<float, 1, Eigen::Dynamic>>& logits, long long target);

// A layer prefix (or name) with "{l}" (and "{e}") filled in.
std::string at_index(const std::string& pattern, int l, int e = -1);

}  // namespace rv
