// The tiny decoder's forward pass (CONTRACTS section 6): embeddings, position method, pre-norm layers, loss.
#include <cmath>

#include "core/decoder.hpp"
#include "core/decoder_internal.hpp"
#include "core/sinusoidal.hpp"

namespace rv::detail {

constexpr double kRmsEps = 1e-5;

std::optional<Error> check_batch(const DecoderConfig& c, const TokenRows& tokens, const TokenRows& targets) {
  if (tokens.empty() || tokens[0].empty()) return bad_request("\"tokens\" must be a non-empty [B][T] array");
  if (targets.size() != tokens.size())
    return bad_request("\"targets\" must have " + std::to_string(tokens.size()) + " rows like \"tokens\", got " +
                       std::to_string(targets.size()));
  const std::size_t T = tokens[0].size();
  for (std::size_t b = 0; b < tokens.size(); ++b) {
    const std::string row = "[" + std::to_string(b) + "]";
    if (tokens[b].size() != T)
      return bad_request("\"tokens\" rows must all have length " + std::to_string(T) + ", row " + row + " has " +
                         std::to_string(tokens[b].size()));
    if (targets[b].size() != T)
      return bad_request("\"targets\" row " + row + " must have length " + std::to_string(T) + ", got " +
                         std::to_string(targets[b].size()));
  }
  for (const auto& row : tokens)
    for (long long id : row)
      if (id < 0 || id >= c.vocab) return index_error(id, c.vocab);  // nn.Embedding refuses negatives too
  for (const auto& row : targets)
    for (long long t : row)
      if (t < -1 || t >= c.vocab) return Error{"IndexError", "Target " + std::to_string(t) + " is out of bounds."};
  if (c.position == PositionMethod::Learned && static_cast<long long>(T) > c.max_position)
    return index_error(c.max_position, c.max_position);  // position max_position is the first one past the table
  return std::nullopt;
}

template <class S>
RowMat<S> rms_rows(const RowMat<S>& x, ColVec<S>& r) {
  r = ((x.array().square().rowwise().sum() / S(x.cols())) + S(kRmsEps)).rsqrt().matrix();  // [T]
  return r.asDiagonal() * x;
}

template <class S>
void rotate_heads(RowMat<S>& x, const PositionTables<S>& pos, int d_head, Pairing p, int sign) {
  for (Eigen::Index t = 0; t < x.rows(); ++t)
    for (Eigen::Index h0 = 0; h0 < x.cols(); h0 += d_head)
      for (int i = 0; i < d_head / 2; ++i) {
        const auto [ia, ib] = pair_indices(i, d_head, p);
        const S cs = pos.cos(t, i), sn = S(sign) * pos.sin(t, i);
        const S a = x(t, h0 + ia), b = x(t, h0 + ib);
        x(t, h0 + ia) = a * cs - b * sn;  // x' = x cos - y sin
        x(t, h0 + ib) = a * sn + b * cs;  // y' = x sin + y cos
      }
}

template <class S>
S score_bias(const DecoderConfig& c, const DecoderWeightsT<S>& w, const PositionTables<S>& pos, int n, long long i,
             long long j) {
  if (c.position == PositionMethod::Alibi) return static_cast<S>(-pos.slopes[static_cast<std::size_t>(n)] * (i - j));
  if (c.position == PositionMethod::T5) return w.rel_bias(pos.bucket[static_cast<std::size_t>(i - j)], n);
  return S(0);
}

namespace {

template <class S>
PositionTables<S> position_tables(const DecoderConfig& c, const DecoderWeightsT<S>& w, int T) {
  PositionTables<S> pos;
  if (c.position == PositionMethod::Learned) pos.added = w.pos_emb.topRows(T);
  if (c.position == PositionMethod::Sinusoidal) {
    std::vector<double> t(static_cast<std::size_t>(T));
    for (int i = 0; i < T; ++i) t[static_cast<std::size_t>(i)] = i;
    pos.added = sinusoidal(c.d_model, t).cast<S>();  // PE(t, 2i) = sin(t / 10000^(2i/d_model))
  }
  if (c.position == PositionMethod::Rope) {
    const Eigen::MatrixXd angle = rope_angle_table(Eigen::VectorXd::LinSpaced(T, 0, T - 1),
                                                   rope_inv_freq(c.d_head(), c.base));  // [T, d_head/2]
    pos.cos = angle.array().cos().matrix().cast<S>();
    pos.sin = angle.array().sin().matrix().cast<S>();
  }
  if (c.position == PositionMethod::Alibi) pos.slopes = alibi_slopes(c.heads);
  if (c.position == PositionMethod::T5)
    for (int r = 0; r < T; ++r) pos.bucket.push_back(t5_bucket(r));
  return pos;
}

// Causal softmax attention of every head; fills L.p and L.o from L.q, L.k, L.v.
template <class S>
void attention(const DecoderConfig& c, const DecoderWeightsT<S>& w, const PositionTables<S>& pos, LayerCache<S>& L) {
  const Eigen::Index T = L.q.rows(), dh = c.d_head();
  const S scale = S(1) / std::sqrt(S(dh));
  L.o = RowMat<S>::Zero(T, c.d_model);
  L.p.assign(static_cast<std::size_t>(c.heads), RowMat<S>::Zero(T, T));
  for (int n = 0; n < c.heads; ++n) {
    RowMat<S>& P = L.p[static_cast<std::size_t>(n)];
    P = (L.q.middleCols(n * dh, dh) * L.k.middleCols(n * dh, dh).transpose()) * scale;  // s = q.k / sqrt(d_head)
    for (Eigen::Index i = 0; i < T; ++i) {
      for (Eigen::Index j = 0; j <= i; ++j) P(i, j) += score_bias(c, w, pos, n, i, j);
      const S top = P.row(i).head(i + 1).maxCoeff();
      P.row(i).head(i + 1) = (P.row(i).head(i + 1).array() - top).exp().matrix();
      P.row(i).head(i + 1) /= P.row(i).head(i + 1).sum();  // softmax over j <= i
      P.row(i).tail(T - i - 1).setZero();                   // causal mask
    }
    L.o.middleCols(n * dh, dh) = P * L.v.middleCols(n * dh, dh);
  }
}

template <class S>
S gelu(S x) {
  return S(0.5) * x * (S(1) + std::erf(x / std::sqrt(S(2))));  // exact (erf) GELU
}

template <class S>
RowMat<S> layer_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const PositionTables<S>& pos,
                        const LayerWeights<S>& W, const RowMat<S>& h, LayerCache<S>& L) {
  L.h_in = h;
  L.n1 = rms_rows(h, L.r1);
  L.a = L.n1 * W.norm1.asDiagonal();  // a = rms(h) * norm1
  L.q = L.a * W.wq;
  L.k = L.a * W.wk;
  L.v = L.a * W.wv;
  if (c.position == PositionMethod::Rope) {
    rotate_heads(L.q, pos, c.d_head(), c.pairing, +1);
    rotate_heads(L.k, pos, c.d_head(), c.pairing, +1);
  }
  attention(c, w, pos, L);
  L.h_mid = h + L.o * W.wo;
  L.n2 = rms_rows(L.h_mid, L.r2);
  L.b = L.n2 * W.norm2.asDiagonal();
  L.u = L.b * W.w1;
  L.g = L.u.unaryExpr([](S x) { return gelu(x); });
  return L.h_mid + L.g * W.w2;
}

// Sum of -log softmax(logits)[target] over this row's counted targets.
template <class S>
S cross_entropy_sum(const RowMat<S>& logits, const std::vector<long long>& targets, long long& counted) {
  S total = 0;
  for (Eigen::Index t = 0; t < logits.rows(); ++t) {
    const long long y = targets[static_cast<std::size_t>(t)];
    if (y < 0) continue;
    const S top = logits.row(t).maxCoeff();
    const S lse = top + std::log((logits.row(t).array() - top).exp().sum());
    total += lse - logits(t, static_cast<Eigen::Index>(y));
    ++counted;
  }
  return total;
}

}  // namespace

template <class S>
ForwardPass<S> run_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const TokenRows& tokens,
                           const TokenRows& targets) {
  ForwardPass<S> fp;
  const int T = static_cast<int>(tokens[0].size());
  fp.pos = position_tables(c, w, T);
  fp.seq.resize(tokens.size());
  S total = 0;
  for (std::size_t b = 0; b < tokens.size(); ++b) {
    SequenceCache<S>& sc = fp.seq[b];
    RowMat<S> h(T, c.d_model);  // h = tok_emb[x] (+ pos_emb[t] or PE(t))  # [T, d_model]
    for (int t = 0; t < T; ++t) h.row(t) = w.tok_emb.row(tokens[b][static_cast<std::size_t>(t)]);
    if (fp.pos.added.size() > 0) h += fp.pos.added;
    sc.layer.resize(w.layer.size());
    for (std::size_t j = 0; j < w.layer.size(); ++j) h = layer_forward(c, w, fp.pos, w.layer[j], h, sc.layer[j]);
    sc.h_last = h;
    sc.n_f = rms_rows(h, sc.r_f);
    sc.f = sc.n_f * w.norm_f.asDiagonal();
    sc.logits = sc.f * w.head;  // [T, vocab]
    total += cross_entropy_sum(sc.logits, targets[b], fp.counted);
  }
  fp.loss = fp.counted > 0 ? total / S(fp.counted) : S(0);
  return fp;
}

}  // namespace rv::detail

namespace rv {

template <class S>
Expected<detail::ForwardPass<S>> detail::checked_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                                         const TokenRows& tokens, const TokenRows& targets) {
  if (auto e = check_decoder_config(c)) return *e;
  if (auto e = check_decoder_weights(c, w)) return *e;
  if (auto e = detail::check_batch(c, tokens, targets)) return *e;
  detail::ForwardPass<S> fp = detail::run_forward(c, w, tokens, targets);
  if (fp.counted == 0) return bad_request("\"targets\" has no entry >= 0: the mean cross-entropy is undefined");
  return fp;
}

template <class S>
Expected<DecoderOutput<S>> decoder_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                           const TokenRows& tokens, const TokenRows& targets) {
  Expected<detail::ForwardPass<S>> fp = detail::checked_forward(c, w, tokens, targets);
  if (!fp) return fp.error();
  DecoderOutput<S> out{fp->loss, {}};
  for (detail::SequenceCache<S>& sc : fp.value().seq) out.logits.push_back(std::move(sc.logits));
  return out;
}

#define RV_DECODER_FORWARD(S)                                                                                      \
  template Expected<DecoderOutput<S>> decoder_forward(const DecoderConfig&, const DecoderWeightsT<S>&,            \
                                                      const TokenRows&, const TokenRows&);                         \
  template Expected<detail::ForwardPass<S>> detail::checked_forward(const DecoderConfig&,                         \
                                                                     const DecoderWeightsT<S>&, const TokenRows&, \
                                                                     const TokenRows&);                           \
  template detail::ForwardPass<S> detail::run_forward(const DecoderConfig&, const DecoderWeightsT<S>&,            \
                                                      const TokenRows&, const TokenRows&);                         \
  template RowMat<S> detail::rms_rows(const RowMat<S>&, detail::ColVec<S>&);                                      \
  template void detail::rotate_heads(RowMat<S>&, const detail::PositionTables<S>&, int, Pairing, int);            \
  template S detail::score_bias(const DecoderConfig&, const DecoderWeightsT<S>&, const detail::PositionTables<S>&, \
                                int, long long, long long);
RV_DECODER_FORWARD(double)
RV_DECODER_FORWARD(float)
#undef RV_DECODER_FORWARD

}  // namespace rv
