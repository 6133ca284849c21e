// What the forward pass keeps for the backward pass, and the batched engine's helpers (decoder_*.cpp, lab.cpp).
#pragma once

#include <algorithm>
#include <vector>

#include "core/base/fixed_sum.hpp"
#include "core/base/sanitize.hpp"
#include "core/decoder/decoder.hpp"
#include "core/decoder/decoder_positions.hpp"
#include "core/decoder/decoder_workspace.hpp"

namespace rv::detail {

template <class S>
using ColVec = Eigen::Matrix<S, Eigen::Dynamic, 1>;

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
  PositionTables<S> pos;  // positions 0 .. the largest of the batch
  std::vector<SequenceCache<S>> seq;  // [B]
};

// Checks config, weights and batch, then runs the forward pass; BadRequest if no target is >= 0. positions as
// decoder_forward's.
template <class S>
Expected<ForwardPass<S>> checked_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const TokenRows& tokens,
                                         const TokenRows& targets, const TokenRows* positions = nullptr);
// Validated inputs only.
template <class S>
ForwardPass<S> run_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const TokenRows& tokens,
                           const TokenRows& targets, const TokenRows* positions = nullptr);
// Row-wise x / sqrt(mean(x^2) + 1e-5); r receives the 1/rms factors  # [T, d] -> [T, d]
template <class S>
RowMat<S> rms_rows(const RowMat<S>& x, ColVec<S>& r);
// First bad field of a batch (positions, when given, shaped like tokens), or nothing.
std::optional<Error> check_batch(const DecoderConfig& c, const TokenRows& tokens, const TokenRows& targets,
                                 const TokenRows* positions = nullptr);
// First bad input of a call with weights (the config, the weights against it, then the batch), or nothing.
template <class S>
std::optional<Error> check_inputs(const DecoderConfig& c, const DecoderWeightsT<S>& w, const TokenRows& tokens,
                                  const TokenRows& targets, const TokenRows* positions) {
  if (auto e = check_decoder_config(c)) return e;
  if (auto e = check_decoder_weights(c, w)) return e;
  return check_batch(c, tokens, targets, positions);
}
// The error of a batch whose targets are all ignored (< 0): its mean cross-entropy is undefined.
Error no_counted_targets();
// The checked entry points' forward pass: the inputs checked (check_inputs), then batch_forward into ws; the batch,
// or the first error (no_counted_targets when no target is >= 0).
template <class S>
Expected<SequenceBatch> checked_batch_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                              const TokenRows& tokens, const TokenRows& targets,
                                              const TokenRows* positions, DecoderWorkspace<S>& ws, bool for_backward,
                                              bool all_rows);

// [SECTION] The batched engine's helpers (decoder_workspace.hpp)
inline constexpr double kRmsEps = 1e-5;

// The query rows of a layer: sequence s from position first(s) on (every position without `from`), as rows start[s]..
// of the layer's post-attention buffers  # rows in all
struct QueryRows {
  const int* from;
  const int* start;
  int rows;
  int first(int s) const { return from ? from[s] : 0; }
};

// Rows 0..n-1 of m, growing m (never shrinking it) to at least n rows of `cols` columns; the contents are undefined
// after a growth. No allocation once m is large enough.
template <class S>
auto grow(RowMat<S>& m, Eigen::Index n, Eigen::Index cols) {
  if (m.cols() != cols || m.rows() < n) m.resize(std::max(n, m.cols() == cols ? m.rows() : Eigen::Index(0)), cols);
  return m.topRows(n);
}
template <class S>
auto grow(ColVec<S>& v, Eigen::Index n) {
  if (v.size() < n) v.resize(n);
  return v.head(n);
}

// y += a * x and x . y over n values (attention's per-head rows: short, so plain loops the compiler vectorizes; the
// dot in fixed_sum's order).
template <class S>
RV_LOOP_KERNEL void axpy(S a, const S* x, S* y, Eigen::Index n) {
  for (Eigen::Index c = 0; c < n; ++c) y[c] += a * x[c];
}
template <class S>
S dot(const S* x, const S* y, Eigen::Index n) {
  return fixed_dot(x, y, n);
}

// f(data of w0, data of each w..., size) for every weight of the config, in weight_refs' order, allocating nothing.
template <class F, class W0, class... W>
void for_each_weight(const DecoderConfig& c, F&& f, W0& w0, W&... w) {
  const auto each = [&](auto pick) { f(pick(w0).data(), pick(w).data()..., static_cast<long long>(pick(w0).size())); };
  each([](auto& x) -> auto& { return x.tok_emb; });
  if (c.position == PositionMethod::Learned) each([](auto& x) -> auto& { return x.pos_emb; });
  for (std::size_t j = 0; j < w0.layer.size(); ++j) {  // the order of weight_refs: norm1, wq, wk, wv, wo, norm2, w1, w2
    each([j](auto& x) -> auto& { return x.layer[j].norm1; });
    each([j](auto& x) -> auto& { return x.layer[j].wq; });
    each([j](auto& x) -> auto& { return x.layer[j].wk; });
    each([j](auto& x) -> auto& { return x.layer[j].wv; });
    each([j](auto& x) -> auto& { return x.layer[j].wo; });
    each([j](auto& x) -> auto& { return x.layer[j].norm2; });
    each([j](auto& x) -> auto& { return x.layer[j].w1; });
    each([j](auto& x) -> auto& { return x.layer[j].w2; });
  }
  if (c.position == PositionMethod::T5) each([](auto& x) -> auto& { return x.rel_bias; });
  each([](auto& x) -> auto& { return x.norm_f; });
  each([](auto& x) -> auto& { return x.head; });
}

}  // namespace rv::detail
