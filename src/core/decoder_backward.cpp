// The tiny decoder's hand-written backward pass: d(mean cross-entropy)/d(every weight), layer by layer in reverse.
#include <cmath>

#include "core/decoder.hpp"
#include "core/decoder_internal.hpp"

namespace rv::detail {
namespace {

// d/dx of n = x * r, r = 1/sqrt(mean(x^2) + eps): dx = r * (dn - n * mean(dn * n)) per row  # [T, d]
template <class S>
RowMat<S> rms_backward(const RowMat<S>& dn, const RowMat<S>& n, const ColVec<S>& r) {
  const ColVec<S> mean_dot = (dn.array() * n.array()).rowwise().sum() / S(n.cols());  // [T]
  return r.asDiagonal() * (dn - mean_dot.asDiagonal() * n);
}

// y = rms(x) * g: accumulates dg, returns dx.
template <class S>
RowMat<S> norm_backward(const RowMat<S>& dy, const RowMat<S>& n, const ColVec<S>& r, const RowVec<S>& g,
                        RowVec<S>& dg) {
  dg += (dy.array() * n.array()).colwise().sum().matrix();
  return rms_backward<S>(dy * g.asDiagonal(), n, r);
}

template <class S>
S gelu_grad(S x) {  // d/dx 0.5 x (1 + erf(x/sqrt 2)) = Phi(x) + x phi(x)
  const S inv_sqrt_2pi = S(0.39894228040143267793994605993438);
  return S(0.5) * (S(1) + std::erf(x / std::sqrt(S(2)))) + x * inv_sqrt_2pi * std::exp(-S(0.5) * x * x);
}

// Backward of every head's softmax attention: dq, dk, dv (rotated frames) from do; accumulates rel_bias (t5).
template <class S>
void attention_backward(const DecoderConfig& c, const PositionTables<S>& pos, const LayerCache<S>& L,
                        const RowMat<S>& d_o, RowMat<S>& dq, RowMat<S>& dk, RowMat<S>& dv, RowMat<S>& d_rel_bias) {
  const Eigen::Index T = L.q.rows(), dh = c.d_head();
  const S scale = S(1) / std::sqrt(S(dh));
  dq = dk = dv = RowMat<S>::Zero(T, c.d_model);
  for (int n = 0; n < c.heads; ++n) {
    const RowMat<S>& P = L.p[static_cast<std::size_t>(n)];
    const RowMat<S> dO = d_o.middleCols(n * dh, dh);
    dv.middleCols(n * dh, dh) = P.transpose() * dO;
    const RowMat<S> dP = dO * L.v.middleCols(n * dh, dh).transpose();  // [T, T]
    const ColVec<S> row_dot = (dP.array() * P.array()).rowwise().sum();
    const RowMat<S> dS = P.array() * (dP.colwise() - row_dot).array();  // softmax backward; masked P are 0
    if (c.position == PositionMethod::T5)
      for (Eigen::Index i = 0; i < T; ++i)
        for (Eigen::Index j = 0; j <= i; ++j) d_rel_bias(pos.bucket[static_cast<std::size_t>(i - j)], n) += dS(i, j);
    dq.middleCols(n * dh, dh) = (dS * L.k.middleCols(n * dh, dh)) * scale;
    dk.middleCols(n * dh, dh) = (dS.transpose() * L.q.middleCols(n * dh, dh)) * scale;
  }
}

// One layer in reverse: dh (gradient at the layer's output) -> gradient at its input; accumulates G.
template <class S>
RowMat<S> layer_backward(const DecoderConfig& c, const PositionTables<S>& pos, const LayerWeights<S>& W,
                         const LayerCache<S>& L, const RowMat<S>& dh, LayerWeights<S>& G, RowMat<S>& d_rel_bias) {
  // h = h_mid + gelu(b @ w1) @ w2
  G.w2 += L.g.transpose() * dh;
  const RowMat<S> du = (dh * W.w2.transpose()).array() * L.u.unaryExpr([](S x) { return gelu_grad(x); }).array();
  G.w1 += L.b.transpose() * du;
  RowMat<S> dh_mid = dh + norm_backward<S>(du * W.w1.transpose(), L.n2, L.r2, W.norm2, G.norm2);
  // h_mid = h_in + o @ wo
  G.wo += L.o.transpose() * dh_mid;
  RowMat<S> dq, dk, dv;
  attention_backward(c, pos, L, RowMat<S>(dh_mid * W.wo.transpose()), dq, dk, dv, d_rel_bias);
  if (c.position == PositionMethod::Rope) {  // the rotation is orthogonal: its transpose rotates back
    rotate_heads(dq, pos, c.d_head(), c.pairing, -1);
    rotate_heads(dk, pos, c.d_head(), c.pairing, -1);
  }
  G.wq += L.a.transpose() * dq;
  G.wk += L.a.transpose() * dk;
  G.wv += L.a.transpose() * dv;
  const RowMat<S> da = dq * W.wq.transpose() + dk * W.wk.transpose() + dv * W.wv.transpose();
  return dh_mid + norm_backward<S>(da, L.n1, L.r1, W.norm1, G.norm1);
}

// d(mean cross-entropy)/d logits: (softmax - onehot) / counted on rows with a target, 0 elsewhere  # [T, vocab]
template <class S>
RowMat<S> logits_backward(const RowMat<S>& logits, const std::vector<long long>& targets, long long counted) {
  RowMat<S> d = RowMat<S>::Zero(logits.rows(), logits.cols());
  for (Eigen::Index t = 0; t < logits.rows(); ++t) {
    const long long y = targets[static_cast<std::size_t>(t)];
    if (y < 0) continue;
    d.row(t) = (logits.row(t).array() - logits.row(t).maxCoeff()).exp().matrix();
    d.row(t) /= d.row(t).sum();
    d(t, static_cast<Eigen::Index>(y)) -= S(1);
  }
  return d / S(counted);
}

template <class S>
void sequence_backward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const PositionTables<S>& pos,
                       const SequenceCache<S>& sc, const std::vector<long long>& tokens,
                       const std::vector<long long>& targets, long long counted, DecoderWeightsT<S>& G) {
  const RowMat<S> dlogits = logits_backward(sc.logits, targets, counted);
  G.head += sc.f.transpose() * dlogits;
  RowMat<S> dh = norm_backward<S>(dlogits * w.head.transpose(), sc.n_f, sc.r_f, w.norm_f, G.norm_f);
  for (std::size_t j = w.layer.size(); j-- > 0;)
    dh = layer_backward(c, pos, w.layer[j], sc.layer[j], dh, G.layer[j], G.rel_bias);
  for (Eigen::Index t = 0; t < dh.rows(); ++t) {
    G.tok_emb.row(tokens[static_cast<std::size_t>(t)]) += dh.row(t);
    if (c.position == PositionMethod::Learned) G.pos_emb.row(t) += dh.row(t);
  }
}

}  // namespace
}  // namespace rv::detail

namespace rv {

template <class S>
Expected<DecoderGrad<S>> decoder_loss_and_grad(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                               const TokenRows& tokens, const TokenRows& targets) {
  const Expected<detail::ForwardPass<S>> fp = detail::checked_forward(c, w, tokens, targets);
  if (!fp) return fp.error();
  DecoderGrad<S> out{fp->loss, zero_weights<S>(c)};
  for (std::size_t b = 0; b < tokens.size(); ++b)
    detail::sequence_backward(c, w, fp->pos, fp->seq[b], tokens[b], targets[b], fp->counted, out.grads);
  return out;
}

template Expected<DecoderGrad<double>> decoder_loss_and_grad(const DecoderConfig&, const DecoderWeightsT<double>&,
                                                             const TokenRows&, const TokenRows&);
template Expected<DecoderGrad<float>> decoder_loss_and_grad(const DecoderConfig&, const DecoderWeightsT<float>&,
                                                            const TokenRows&, const TokenRows&);

}  // namespace rv
