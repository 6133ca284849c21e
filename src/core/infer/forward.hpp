// A real model's forward pass, as transformers' *ForCausalLM eager forward (no dropout, no cache): float32 arithmetic
// from the stored dtype, one layer's weights at a time through the checkpoint's ByteSource, attention one query row
// at a time (no T x T matrix), every sum in fixed_sum's order. NLL by position, logits, attention by distance and
// the sink, under the config's rope, another rope_scaling, or none at all (docs/run-it.md).
#pragma once

#include <Eigen/Core>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/models/hf_config.hpp"
#include "core/weights/checkpoint.hpp"

namespace rv {

using RowMatrixXf = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Which rope the pass rotates with.
enum class RopeAtInference {
  Config,   // the config's own rope_scaling
  Replace,  // ForwardOptions::rope_scaling in its place
  None,     // the unscaled frequencies ("rope_scaling": "none")
  Drop,     // no rotation at all (NoPE at inference: "rope": "drop")
};

struct ForwardOptions {
  std::vector<long long> tokens;
  std::vector<long long> positions;  // [T] position ids; empty: 0..T-1
  RopeAtInference rope = RopeAtInference::Config;
  HfRopeScaling rope_scaling;  // with RopeAtInference::Replace
  bool logits = false, attention_by_distance = false, sink = false;
  bool attention = false, hidden = false, qk_pair_norms = false;
  int threads = 1;  // native builds: heads and row blocks shared out (the same numbers for any count)
  // The head only for rows t >= head_from (nll[t] before it is NaN): a bench that scores its last tokens only.
  long long head_from = 0;
  bool top1 = false;  // ForwardResult::top1
  // Called after each layer (0-based) with the layer count; returning false stops the pass (Stop): BadRequest
  // "stopped".
  std::function<bool(int layer, int layers)> progress;
};

struct ForwardResult {
  int layers = 0, heads = 0, vocab = 0;
  std::vector<double> nll;  // [T-1]: -log softmax(logits[t])[tokens[t+1]], natural log
  std::vector<char> top1;   // [T-1] when asked: tokens[t+1] is the argmax of logits[t] (its first index)
  RowMatrixXf logits;       // [T, V] when asked
  std::vector<std::vector<std::vector<double>>> by_distance;  // [L][H][T]: mean p at r = t - s over t >= r
  std::vector<std::vector<double>> sink;                      // [L][H]: mean p on position 0 over t >= 1
  std::vector<std::vector<RowMatrixXf>> attention;            // [L][H] -> [T, T]: the probabilities after softmax
  std::vector<RowMatrixXf> hidden;  // [L+1] -> [T, d]: the embeddings, each layer's output, the last after the norm
  // [L][H][r/2] and [L][Hk][r/2]: the RMS over tokens of each rotated pair's 2-norm in q and k before the rotation
  std::vector<std::vector<std::vector<double>>> q_pair_norms, k_pair_norms;
};

// The longest sequence a pass takes (attention is a row at a time: its memory grows with T, not T * T).
constexpr long long kMaxForwardTokens = 1 << 16;

// The sizes of a model the pass runs, from its config and weights (for limits before a pass): BadRequest for another
// family, a missing embedding or layer.
struct ForwardShape {
  long long vocab = 0, d = 0;
  int layers = 0, heads = 0;
};
Expected<ForwardShape> forward_shape(Checkpoint& c, const HfConfig& config);

// BadRequest naming the model_type it does not run, a tensor that is missing or mis-shaped (with the shape
// expected), a config field the family needs; IndexError for a token past the vocabulary or a position past a
// learned table (PyTorch's message).
Expected<ForwardResult> forward(Checkpoint& c, const HfConfig& config, const ForwardOptions& o);

}  // namespace rv
