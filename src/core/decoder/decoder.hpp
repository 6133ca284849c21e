// The lab's tiny decoder-only transformer (docs/lab.md): config, weights, forward,
// hand-written backward, AdamW.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"
#include "core/rope/rope.hpp"

namespace rv {

// [SECTION] Config
enum class PositionMethod { Learned, Sinusoidal, Rope, Alibi, T5, None };

const char* position_method_name(PositionMethod m);  // "learned", "sinusoidal", ...
std::optional<PositionMethod> parse_position_method(std::string_view name);
inline constexpr PositionMethod kAllPositionMethods[] = {PositionMethod::Learned, PositionMethod::Sinusoidal,
                                                         PositionMethod::Rope,    PositionMethod::Alibi,
                                                         PositionMethod::T5,      PositionMethod::None};
// The names above in their order, as messages and the methods link key list them (tests/core/test_decoder.cpp
// checks them against position_method_name).
inline constexpr const char* kPositionMethodChoices = "learned, sinusoidal, rope, alibi, t5, none";

struct DecoderConfig {
  int vocab = 0, d_model = 0, heads = 0, layers = 0, d_ff = 0;
  PositionMethod position = PositionMethod::Rope;
  int max_position = 0;                    // rows of pos_emb (learned only)
  double base = 10000.0;                   // rope only
  Pairing pairing = Pairing::Interleaved;  // rope only
  // rope only: the frequencies theta_i in place of base^(-2i/d_head) when not empty (context extension: core's
  // rope_scaled_inv_freq), and a factor multiplying cos and sin (YaRN's attention factor: scores scale by its square)
  std::vector<double> inv_freq;  // [d_head/2] or empty
  double attention_factor = 1.0;
  int d_head() const { return heads > 0 ? d_model / heads : 0; }
};

// BadRequest naming the field: zero sizes, d_model % heads, odd d_head or base <= 1 for rope, max_position for learned;
// an inv_freq override not of d_head/2 finite numbers, a non-finite or non-positive attention_factor, or either set
// for a method other than rope.
std::optional<Error> check_decoder_config(const DecoderConfig& c);
// The rope frequencies the decoder uses: the config's inv_freq override, else rope_inv_freq(d_head, base)  # [d_head/2]
Eigen::VectorXd decoder_inv_freq(const DecoderConfig& c);

// [SECTION] Weights
template <class S>
using RowMat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class S>
using RowVec = Eigen::Matrix<S, 1, Eigen::Dynamic>;

template <class S>
struct LayerWeights {
  RowVec<S> norm1, norm2;    // [d_model]
  RowMat<S> wq, wk, wv, wo;  // [d_model, d_model]
  RowMat<S> w1, w2;          // [d_model, d_ff], [d_ff, d_model]
};

template <class S>
struct DecoderWeightsT {
  RowMat<S> tok_emb;                   // [vocab, d_model]
  RowMat<S> pos_emb;                   // [max_position, d_model], learned only (else empty)
  std::vector<LayerWeights<S>> layer;  // [layers]
  RowMat<S> rel_bias;                  // [kT5Buckets = 32, heads], t5 only (else empty; encodings/biases.hpp)
  RowVec<S> norm_f;                    // [d_model]
  RowMat<S> head;                      // [d_model, vocab]
};
using DecoderWeights = DecoderWeightsT<double>;

// One weight by its contract name: shape is [n] for vectors, [rows, cols] for matrices; data is row-major.
template <class T>  // double, float, or const of either
struct WeightRef {
  std::string name;
  std::vector<long long> shape;
  T* data = nullptr;
  long long size = 0;
};
// Every weight of this config in the fixed order tok_emb, pos_emb, l0.norm1, l0.wq, l0.wk, l0.wv, l0.wo, l0.norm2,
// l0.w1, l0.w2, l1..., rel_bias, norm_f, head (pos_emb / rel_bias only when used). Shapes are the contract's;
// data/size are the stored matrix (check_decoder_weights compares them).
template <class S>
std::vector<WeightRef<S>> weight_refs(const DecoderConfig& c, DecoderWeightsT<S>& w);
template <class S>
std::vector<WeightRef<const S>> weight_refs(const DecoderConfig& c, const DecoderWeightsT<S>& w);
// Contract names and shapes alone, in the same order.
std::vector<WeightRef<double>> weight_specs(const DecoderConfig& c);
// All weights of the config's shapes, zero-filled.
template <class S>
DecoderWeightsT<S> zero_weights(const DecoderConfig& c);
// Seeded init: matrices N(0, stddev^2) from NormalRng, norms one, rel_bias zero.
template <class S>
DecoderWeightsT<S> init_decoder_weights(const DecoderConfig& c, std::uint64_t seed, double stddev = 0.02);
// BadRequest "weight \"l0.wq\" must be [8, 8], got [8, 7]" for the first mismatch.
template <class S>
std::optional<Error> check_decoder_weights(const DecoderConfig& c, const DecoderWeightsT<S>& w);
long long decoder_param_count(const DecoderConfig& c);

// [SECTION] Forward and backward
using TokenRows = std::vector<std::vector<long long>>;  // [B][T]

template <class S>
struct DecoderOutput {
  S loss = 0;                     // mean cross-entropy over targets >= 0
  std::vector<RowMat<S>> logits;  // [B] of [T, vocab]
};
template <class S>
struct DecoderGrad {
  S loss = 0;
  DecoderWeightsT<S> grads;  // same names and shapes as the weights
};

// positions ([B][T] like tokens, or nullptr: row t at position t) place token j of a row at positions[row][j]: the
// position its method reads (pos_emb[p], PE(p), rope's rotation at p, alibi's -slope_n (p_i - p_j), t5's
// rel_bias[bucket(max(p_i - p_j, 0)), n]: a key at a later position than its query takes bucket 0, as T5's causal
// bucketing of -min(j - i, 0) does); causality stays by index (docs/lab.md). Without
// positions the numbers are those of 0..T-1 given explicitly, bit for bit.
// Errors: config/weights as above; ragged or empty rows, targets or positions not shaped like tokens, a negative
// position -> BadRequest; token id outside [0, vocab) -> IndexError (as nn.Embedding); for learned, a position
// >= max_position -> IndexError of the first such position by row (without positions: T > max_position is position
// max_position's); target outside [-1, vocab) -> IndexError "Target 9 is out of bounds."; no target >= 0 ->
// BadRequest. The position tables cover every position up to the largest: memory grows with it.
template <class S>
Expected<DecoderOutput<S>> decoder_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const TokenRows& tokens,
                                           const TokenRows& targets, const TokenRows* positions = nullptr);
template <class S>
Expected<DecoderGrad<S>> decoder_loss_and_grad(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                               const TokenRows& tokens, const TokenRows& targets,
                                               const TokenRows* positions = nullptr);

// [SECTION] AdamW (Loshchilov & Hutter; torch.optim.AdamW's update)
struct AdamWConfig {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.01;
};
template <class S>
struct AdamWState {
  long long step = 0;
  DecoderWeightsT<S> m, v;  // first and second moments, per weight
};
template <class S>
AdamWState<S> adamw_init(const DecoderConfig& c);
// w <- w * (1 - lr*wd); w <- w - lr * m_hat / (sqrt(v_hat) + eps), m_hat = m/(1-beta1^t), v_hat = v/(1-beta2^t).
template <class S>
void adamw_step(const DecoderConfig& c, const AdamWConfig& opt, DecoderWeightsT<S>& w, const DecoderWeightsT<S>& grad,
                AdamWState<S>& state);
// The same update on one flat array (used by adamw_step; tests run it on a quadratic).
template <class S>
void adamw_update(const AdamWConfig& opt, long long step, S* w, const S* g, S* m, S* v, long long n);

}  // namespace rv
