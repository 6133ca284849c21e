// The tiny decoder's hand-written backward pass: d(mean cross-entropy)/d(every weight), layer by layer in reverse.
#include <algorithm>
#include <cmath>

#include "core/base/fixed_sum.hpp"
#include "core/base/portable_math.hpp"
#include "core/decoder/decoder.hpp"
#include "core/decoder/decoder_internal.hpp"
#include "core/base/matmul.hpp"

namespace rv::detail {
namespace {

// y = rms(x) * g with n = rms(x), r = 1/rms: accumulates dg += sum over rows of dy * n, and adds
// dx = r * (dn - n * mean(dn * n)), dn = dy * g, to dx row by row.
template <class S, class DY, class N, class R, class DX>
void norm_backward(const DY& dy, const N& n, const R& r, const RowVec<S>& g, RowVec<S>& dg, DX dx) {
  const S inv_d = S(1) / S(n.cols());
  for (Eigen::Index i = 0; i < dy.rows(); ++i) {
    const auto dyi = dy.row(i).array();
    const auto ni = n.row(i).array();
    dg.array() += dyi * ni;
    const S mean_dot = fixed_sum(dyi * g.array() * ni) * inv_d;
    dx.row(i).array() += r(i) * (dyi * g.array() - mean_dot * ni);
  }
}

// Backward of every head's softmax attention for the query rows q: dqkv (q and k in the rotated frame, every row)
// from d_o (query rows); accumulates the gradient of the score bias by distance into ws.d_bias (t5).
template <class S, class DO>
void attention_backward(const DecoderConfig& c, const SequenceBatch& b, DecoderWorkspace<S>& ws, const QueryRows& q,
                        const LayerBuffers<S>& L, const DO& d_o) {
  const Eigen::Index d = c.d_model, dh = c.d_head(), ld = 3 * d, stride = ws.stride;
  const S scale = S(1) / std::sqrt(S(dh));
  const bool trains_bias = score_bias_trains(c);  // t5
  grow(ws.dqkv, b.rows(), ld).setZero();
  grow(ws.dp, 1, stride);
  S* dS = ws.dp.data();  // one row of dP, then dS
  for (int s = 0; s < b.sequences(); ++s) {
    const Eigen::Index r0 = b.start[static_cast<std::size_t>(s)], T = b.length[static_cast<std::size_t>(s)];
    const Eigen::Index i0 = q.first(s), c0 = q.start[s] - i0;  // query i is row c0 + i of L.p and d_o
    const long long* pos = ws.position.data() + r0;            // row i at position pos[i]
    for (int n = 0; n < c.heads; ++n) {
      const S* x = L.qkv.data() + r0 * ld + n * dh;  // q_i of head n at x + i * ld, k_i at + d, v_i at + 2d
      S* dx = ws.dqkv.data() + r0 * ld + n * dh;
      S* d_bias = trains_bias ? ws.d_bias.data() + n * ws.d_bias.cols() + ws.before : nullptr;  // distance r at [r]
      for (Eigen::Index i = i0; i < T; ++i) {
        const S* p = L.p.data() + (c0 + i) * L.p.cols() + n * stride;
        const S* dOi = &d_o(c0 + i, n * dh);
        S row_dot = 0;
        for (Eigen::Index j = 0; j <= i; ++j) {  // dP = dO . v
          dS[j] = dot(dOi, x + j * ld + 2 * d, dh);
          row_dot += dS[j] * p[j];
        }
        for (Eigen::Index j = 0; j <= i; ++j) {  // softmax backward: dS = P * (dP - sum_j dP P)
          dS[j] = p[j] * (dS[j] - row_dot);
          if (trains_bias) d_bias[pos[i] - pos[j]] += dS[j];     // bias(n, p_i - p_j)
          axpy(p[j], dOi, dx + j * ld + 2 * d, dh);              // dv_j += P dO_i
          axpy(dS[j] * scale, x + j * ld + d, dx + i * ld, dh);  // dq_i += dS k_j / sqrt(d_head)
          axpy(dS[j] * scale, x + i * ld, dx + j * ld + d, dh);  // dk_j += dS q_i / sqrt(d_head)
        }
      }
    }
  }
}

// One layer in reverse, from the gradient at its output rows q (in `dstream`: ws.dh itself when q is every row) to
// the gradient at its input in ws.dh (every row); writes G's matrices, accumulates its norms.
template <class S>
void layer_backward(const DecoderConfig& c, const LayerWeights<S>& W, const RowMat<S>& wqkv, const SequenceBatch& b,
                    DecoderWorkspace<S>& ws, const LayerBuffers<S>& L, LayerWeights<S>& G, RowMat<S>& g_qkv,
                    const QueryRows& q, RowMat<S>& dstream) {
  const Eigen::Index N = b.rows(), M = q.rows, d = c.d_model, f = c.d_ff;
  const S inv_sqrt_2pi = S(0.39894228040143267793994605993438);
  auto dy = dstream.topRows(M);
  // h = h_mid + gelu(b @ w1) @ w2, gelu'(u) = Phi(u) + u phi(u)
  matmul_tn(L.g.topRows(M), dy, G.w2);
  auto du = grow(ws.dff, M, f);
  matmul_nt(dy, W.w2, du, ws.wt);
  const auto u = L.u.topRows(M).array();
  du.array() *= L.cdf.topRows(M).array() + u * math::exp(S(-0.5) * u.square()) * inv_sqrt_2pi;
  matmul_tn(L.b.topRows(M), du, G.w1);
  auto dd = grow(ws.dd, N, d);
  matmul_nt(du, W.w1, dd.topRows(M), ws.wt);
  norm_backward(dd.topRows(M), L.n2.topRows(M), L.r2, W.norm2, G.norm2, dy);  // dy is now d h_mid
  // h_mid = h_in + o @ wo
  matmul_tn(L.o.topRows(M), dy, G.wo);
  matmul_nt(dy, W.wo, dd.topRows(M), ws.wt);  // d o
  attention_backward(c, b, ws, q, L, dd);
  rotate_qk(c, ws.pos, ws.position.data(), ws.dqkv, N, 2 * d, -1);  // back to q and k before rope (the transpose)
  auto dqkv = ws.dqkv.topRows(N);
  matmul_tn(L.a.topRows(N), dqkv, g_qkv);
  matmul_nt(dqkv, wqkv, dd, ws.wt);  // d a
  if (&dstream != &ws.dh) {  // the residual path carries d h_mid to the query rows only
    grow(ws.dh, N, d).setZero();
    for (int s = 0; s < b.sequences(); ++s) {
      const int t0 = q.first(s), T = b.length[static_cast<std::size_t>(s)];
      ws.dh.middleRows(b.start[static_cast<std::size_t>(s)] + t0, T - t0) = dy.middleRows(q.start[s], T - t0);
    }
  }
  norm_backward(dd, L.n1.topRows(N), L.r1, W.norm1, G.norm1, ws.dh.topRows(N));
}

// ws.grad shaped for the config; zero where it accumulates (norms, embeddings, rel_bias; the matrices are written).
template <class S>
void zero_grads(const DecoderConfig& c, DecoderWorkspace<S>& ws) {
  if (ws.grad.layer.size() != static_cast<std::size_t>(c.layers)) ws.grad = zero_weights<S>(c);
  DecoderWeightsT<S>& G = ws.grad;
  G.tok_emb.setZero();
  G.pos_emb.setZero();
  G.rel_bias.setZero();
  G.norm_f.setZero();
  for (LayerWeights<S>& L : G.layer) {
    L.norm1.setZero();
    L.norm2.setZero();
  }
  ws.g_qkv.resize(static_cast<std::size_t>(c.layers));
  for (RowMat<S>& m : ws.g_qkv)
    if (m.rows() != c.d_model || m.cols() != 3 * c.d_model) m.resize(c.d_model, 3 * c.d_model);
  if (score_bias_trains(c)) ws.d_bias.setZero(c.heads, ws.before + ws.table_rows);
}

// Gradients that only gather: the embedding rows (learned: its rows' positions' too), t5's buckets, the packed q, k,
// v.
template <class S>
void scatter_grads(const DecoderConfig& c, const SequenceBatch& b, DecoderWorkspace<S>& ws) {
  DecoderWeightsT<S>& G = ws.grad;
  for (int s = 0; s < b.sequences(); ++s)
    for (int t = 0; t < b.length[static_cast<std::size_t>(s)]; ++t) {
      const int r = b.start[static_cast<std::size_t>(s)] + t;
      G.tok_emb.row(b.tokens[static_cast<std::size_t>(r)]) += ws.dh.row(r);
      add_input_position_grad(c, ws.position[static_cast<std::size_t>(r)], ws.dh.row(r).data(), G);
    }
  score_bias_grad(c, ws.pos, ws.d_bias, ws.before, G);
  const Eigen::Index d = c.d_model;
  for (std::size_t j = 0; j < G.layer.size(); ++j) {
    G.layer[j].wq = ws.g_qkv[j].leftCols(d);
    G.layer[j].wk = ws.g_qkv[j].middleCols(d, d);
    G.layer[j].wv = ws.g_qkv[j].rightCols(d);
  }
}

}  // namespace
}  // namespace rv::detail

namespace rv {

template <class S>
void batch_backward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const SequenceBatch& b,
                    DecoderWorkspace<S>& ws) {
  detail::zero_grads(c, ws);
  const Eigen::Index M = ws.out_rows, d = c.d_model;
  const auto dlogits = ws.dlogits.topRows(M);
  detail::matmul_tn(ws.f.topRows(M), dlogits, ws.grad.head);
  auto dd = detail::grow(ws.dd, M, d);
  detail::matmul_nt(dlogits, w.head, dd, ws.wt);
  detail::grow(ws.dout, M, d).setZero();
  detail::norm_backward(dd, ws.n_f.topRows(M), ws.r_f, w.norm_f, ws.grad.norm_f, ws.dout.topRows(M));
  const detail::QueryRows every{nullptr, b.start.data(), b.rows()};
  const detail::QueryRows out{ws.out_from.data(), ws.out_start.data(), ws.out_rows};
  for (std::size_t j = w.layer.size(); j-- > 0;) {
    const bool last = j + 1 == w.layer.size();
    detail::layer_backward(c, w.layer[j], ws.wqkv[j], b, ws, ws.layer[j], ws.grad.layer[j], ws.g_qkv[j],
                           last ? out : every, last ? ws.dout : ws.dh);
  }
  detail::scatter_grads(c, b, ws);
}

template <class S>
Expected<DecoderGrad<S>> decoder_loss_and_grad(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                               const TokenRows& tokens, const TokenRows& targets,
                                               const TokenRows* positions) {
  DecoderWorkspace<S> ws;
  const Expected<SequenceBatch> b = detail::checked_batch_forward(c, w, tokens, targets, positions, ws, true, false);
  if (!b) return b.error();
  batch_backward(c, w, *b, ws);
  return DecoderGrad<S>{ws.loss, std::move(ws.grad)};
}

#define RV_DECODER_BACKWARD(S)                                                                             \
  template void batch_backward(const DecoderConfig&, const DecoderWeightsT<S>&, const SequenceBatch&,      \
                               DecoderWorkspace<S>&);                                                      \
  template Expected<DecoderGrad<S>> decoder_loss_and_grad(const DecoderConfig&, const DecoderWeightsT<S>&, \
                                                          const TokenRows&, const TokenRows&, const TokenRows*);
RV_DECODER_BACKWARD(double)
RV_DECODER_BACKWARD(float)
#undef RV_DECODER_BACKWARD

}  // namespace rv
