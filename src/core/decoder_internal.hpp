// What the decoder's forward pass keeps for its backward pass (shared by decoder_forward.cpp and decoder_backward.cpp).
#pragma once

#include <vector>

#include "core/decoder.hpp"

namespace rv::detail {

template <class S>
using ColVec = Eigen::Matrix<S, Eigen::Dynamic, 1>;

// Everything that depends on positions only, for sequences of length T.
template <class S>
struct PositionTables {
  RowMat<S> added;            // [T, d_model]: pos_emb rows or PE(t) (learned, sinusoidal), else empty
  RowMat<S> cos, sin;         // [T, d_head/2]: cos/sin(t * theta_i) (rope), else empty
  std::vector<double> slopes;  // [heads] (alibi)
  std::vector<int> bucket;     // bucket[r] = t5_bucket(r), r = 0..T-1 (t5)
};

template <class S>
struct LayerCache {
  RowMat<S> h_in, n1, a, q, k, v, o, h_mid, n2, b, u, g;  // each [T, *]; q, k after rope
  ColVec<S> r1, r2;                                       // 1/rms per row  # [T]
  std::vector<RowMat<S>> p;                               // attention probabilities per head  # [heads][T, T]
};

template <class S>
struct SequenceCache {
  std::vector<LayerCache<S>> layer;
  RowMat<S> h_last, n_f, f, logits;  // [T, d_model] x3, [T, vocab]
  ColVec<S> r_f;
};

template <class S>
struct ForwardPass {
  S loss = 0;
  long long counted = 0;  // targets >= 0
  PositionTables<S> pos;
  std::vector<SequenceCache<S>> seq;  // [B]
};

// Checks config, weights and batch, then runs the forward pass; BadRequest if no target is >= 0.
template <class S>
Expected<ForwardPass<S>> checked_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const TokenRows& tokens,
                                         const TokenRows& targets);
// Validated inputs only.
template <class S>
ForwardPass<S> run_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const TokenRows& tokens,
                           const TokenRows& targets);
// Row-wise x / sqrt(mean(x^2) + 1e-5); r receives the 1/rms factors  # [T, d] -> [T, d]
template <class S>
RowMat<S> rms_rows(const RowMat<S>& x, ColVec<S>& r);
// Rotate every head's pairs of x's rows by sign * t * theta_i (sign -1 undoes the rotation)  # [T, d_model]
template <class S>
void rotate_heads(RowMat<S>& x, const PositionTables<S>& pos, int d_head, Pairing p, int sign);
// Additive score bias of head n (alibi, t5), before the causal mask  # [T, T]
template <class S>
S score_bias(const DecoderConfig& c, const DecoderWeightsT<S>& w, const PositionTables<S>& pos, int n, long long i,
             long long j);
// First bad field of a batch, or nothing.
std::optional<Error> check_batch(const DecoderConfig& c, const TokenRows& tokens, const TokenRows& targets);

}  // namespace rv::detail
