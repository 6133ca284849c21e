// The pieces of the forward pass's layers (core/infer/forward.hpp): tensors read as float and checked by shape, the
// norms, rotation, causal attention one query row at a time with its statistics, each family's block, and the NLL.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/infer/family.hpp"
#include "core/infer/forward.hpp"

namespace rv {

// Named tensors as float, each checked against the shape expected (a missing or mis-shaped one is named with it).
struct TensorReader {
  Checkpoint& c;
  Expected<RowMatrixXf> operator()(const std::string& name, const std::vector<long long>& shape) const;
  bool has(const std::string& name) const { return c.find(name) != nullptr; }
};

struct LayerContext {
  const TensorReader& read;
  const InferFamily& family;
  long long d;
  int heads, kv_heads, head_dim;
  float eps;
  InferAct act;
  long long T;
  const std::vector<long long>& positions;
};

// What the attention rows add up, when asked: [layer][head][distance] and [layer][head].
struct AttentionStats {
  bool by_distance_on = false, sink_on = false;
  std::vector<std::vector<std::vector<double>>> by_distance;
  std::vector<std::vector<double>> sink;
};

// h normed in place by the weight (and bias) stored under name (RMS: name is the weight; LayerNorm: name + ".weight"
// and ".bias").
std::optional<Error> rms_norm(const TensorReader& read, const std::string& name, InferNorm norm, RowMatrixXf& h,
                              float eps);
std::optional<Error> layer_norm(const TensorReader& read, const std::string& prefix, RowMatrixXf& h, float eps);

// One decoder layer on h [T, d], in place; rope null: no rotation.
std::optional<Error> llama_layer(const LayerContext& ctx, int layer, const std::optional<RopeModel>& rope,
                                 RowMatrixXf& h, AttentionStats& stats);
std::optional<Error> gpt2_layer(const LayerContext& ctx, int layer, RowMatrixXf& h, AttentionStats& stats);

// -log softmax(logits)[target], in float as torch's cross-entropy of float32 logits.
double token_nll(const Eigen::Ref<const Eigen::Matrix<float, 1, Eigen::Dynamic>>& logits, long long target);

}  // namespace rv
