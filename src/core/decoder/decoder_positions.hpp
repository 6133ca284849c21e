// How each position method enters the tiny decoder, for its full pass, its backward pass and its KV cache alike: added
// to the input (learned, sinusoidal), rotating q and k (rope), a bias on the scores (alibi, t5) or not at all (none).
#pragma once

#include <vector>

#include "core/decoder/decoder.hpp"

namespace rv::detail {

// What queries at positions first .. first + rows - 1 need, against keys at any positions >= 0. A token's
// position is its row's (docs/lab.md: 0..T-1 unless given).
template <class S>
struct PositionTables {
  long long first = 0;         // the position of row 0
  RowMat<S> added;             // [rows, d_model]: PE(t) (sinusoidal), else empty (learned reads pos_emb: it trains)
  RowMat<S> cos, sin;          // [rows, d_head/2]: attention_factor * cos/sin(t * theta_i) (rope), else empty
  std::vector<double> slopes;  // [heads] (alibi)
  std::vector<int> bucket;     // bucket[r] = t5_bucket(r), distances r = 0 .. first + rows - 1 (t5)
};
template <class S>
PositionTables<S> position_tables(const DecoderConfig& c, long long first, long long rows);

// [SECTION] Added to the input
// h += position t's vector: pos_emb[t] (learned), PE(t) (sinusoidal); the others add nothing  # [d_model]
template <class S>
void add_input_position(const DecoderConfig& c, const DecoderWeightsT<S>& w, const PositionTables<S>& pos, long long t,
                        S* h);
// Its gradient: grad.pos_emb[t] += dh (learned); nothing for the others  # [d_model]
template <class S>
void add_input_position_grad(const DecoderConfig& c, long long t, const S* dh, DecoderWeightsT<S>& grad);

// [SECTION] Rotating q and k
// rope: every head of the `cols` values at x (q, or q and k side by side) rotated by sign * t * theta_i, with sign -1
// undoing it (the transpose of a rotation); the others leave q and k alone.
template <class S>
void rotate_qk(const DecoderConfig& c, const PositionTables<S>& pos, long long t, S* x, Eigen::Index cols, int sign);
// The same for rows 0..rows-1 of x: row r at position[r].
template <class S>
void rotate_qk(const DecoderConfig& c, const PositionTables<S>& pos, const long long* position, RowMat<S>& x,
               Eigen::Index rows, Eigen::Index cols, int sign);

// [SECTION] A bias on the scores
// Head n's additive bias on the score of a query at position p_i against a key at p_j (j <= i by row), before the
// causal mask: -slope_n (p_i - p_j) (alibi), rel_bias[bucket(max(p_i - p_j, 0)), n] (t5: a key at a later position
// than its query takes bucket 0, as T5's causal bucketing of -min(p_j - p_i, 0) does), 0 for the others.
// pos.bucket must reach p_i.
template <class S>
S score_bias(const DecoderConfig& c, const DecoderWeightsT<S>& w, const PositionTables<S>& pos, int n, long long p_i,
             long long p_j);
// bias(n, before + r) = score_bias(n, r, 0) for the distances -before <= r < rows, [heads, before + rows]; empty when
// the method has no bias. t5's follows rel_bias, so a pass refills it; no allocation once bias has the shape.
template <class S>
void score_bias_by_distance(const DecoderConfig& c, const DecoderWeightsT<S>& w, const PositionTables<S>& pos,
                            Eigen::Index before, Eigen::Index rows, RowMat<S>& bias);
// Whether the bias trains, so that the backward pass accumulates d_bias(n, before + r) (t5).
bool score_bias_trains(const DecoderConfig& c);
// Its gradient: grad.rel_bias[bucket(max(r, 0)), n] += d_bias(n, before + r) (t5); nothing for the others.
template <class S>
void score_bias_grad(const DecoderConfig& c, const PositionTables<S>& pos, const RowMat<S>& d_bias, Eigen::Index before,
                     DecoderWeightsT<S>& grad);

}  // namespace rv::detail
