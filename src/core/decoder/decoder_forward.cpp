// The tiny decoder's forward pass (docs/lab.md): embeddings, position method,
// pre-norm layers, loss.
#include <cmath>

#include "core/base/fixed_sum.hpp"
#include "core/base/portable_math.hpp"
#include "core/decoder/decoder.hpp"
#include "core/decoder/decoder_internal.hpp"
#include "core/base/matmul.hpp"

namespace rv {

// [SECTION] Batches

void SequenceBatch::clear() {
  tokens.clear();
  targets.clear();
  position.clear();
  start.clear();
  length.clear();
  max_length = 0;
}

int SequenceBatch::append(int T) {
  const int r0 = rows();
  tokens.resize(static_cast<std::size_t>(r0 + T), 0);
  targets.resize(static_cast<std::size_t>(r0 + T), -1);
  if (!position.empty())
    for (int t = 0; t < T; ++t) position.push_back(t);
  start.push_back(r0);
  length.push_back(T);
  max_length = std::max(max_length, T);
  return r0;
}

void SequenceBatch::set_positions(int s, const long long* p) {
  if (position.empty()) {  // every sequence at 0..T-1 so far
    position.resize(tokens.size());
    for (std::size_t k = 0; k < start.size(); ++k)
      for (int t = 0; t < length[k]; ++t) position[static_cast<std::size_t>(start[k] + t)] = t;
  }
  const std::size_t k = static_cast<std::size_t>(s);
  std::copy(p, p + length[k], position.begin() + start[k]);
}

SequenceBatch sequence_batch(const TokenRows& tokens, const TokenRows& targets, const TokenRows* positions) {
  SequenceBatch b;
  for (std::size_t s = 0; s < tokens.size(); ++s) {
    const int r0 = b.append(static_cast<int>(tokens[s].size()));
    std::copy(tokens[s].begin(), tokens[s].end(), b.tokens.begin() + r0);
    std::copy(targets[s].begin(), targets[s].end(), b.targets.begin() + r0);
    if (positions) b.set_positions(static_cast<int>(s), (*positions)[s].data());
  }
  return b;
}

std::optional<Error> check_sequence_batch(const DecoderConfig& c, const SequenceBatch& b) {
  if (b.rows() == 0 || b.sequences() == 0) return bad_request("\"tokens\" must be a non-empty [B][T] array");
  for (long long id : b.tokens)
    if (id < 0 || id >= c.vocab) return index_error(id, c.vocab);  // nn.Embedding refuses negatives too
  for (long long t : b.targets)
    if (t < -1 || t >= c.vocab) return Error{"IndexError", "Target " + std::to_string(t) + " is out of bounds."};
  if (!b.position.empty() && b.position.size() != b.tokens.size())
    return bad_request("\"positions\" must hold one position per row (" + std::to_string(b.rows()) + "), got " +
                       std::to_string(b.position.size()));
  for (long long p : b.position)
    if (p < 0) return bad_request("\"positions\" must be >= 0, got " + std::to_string(p));
  if (c.position != PositionMethod::Learned) return std::nullopt;
  if (b.position.empty() && b.max_length > c.max_position)
    return index_error(c.max_position, c.max_position);  // position max_position is the first one past the table
  for (long long p : b.position)
    if (p >= c.max_position) return index_error(p, c.max_position);  // the first one past the table, by row
  return std::nullopt;
}

}  // namespace rv

namespace rv::detail {

std::optional<Error> check_batch(const DecoderConfig& c, const TokenRows& tokens, const TokenRows& targets,
                                 const TokenRows* positions) {
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
  if (positions && positions->size() != tokens.size())
    return bad_request("\"positions\" must have " + std::to_string(tokens.size()) + " rows like \"tokens\", got " +
                       std::to_string(positions->size()));
  for (std::size_t b = 0; positions && b < positions->size(); ++b)
    if ((*positions)[b].size() != T)
      return bad_request("\"positions\" row [" + std::to_string(b) + "] must have length " + std::to_string(T) +
                         ", got " + std::to_string((*positions)[b].size()));
  return check_sequence_batch(c, sequence_batch(tokens, targets, positions));
}

Error no_counted_targets() {
  return bad_request("\"targets\" has no entry >= 0: the mean cross-entropy is undefined");
}

template <class S>
RowMat<S> rms_rows(const RowMat<S>& x, ColVec<S>& r) {
  r = ((fixed_row_sums(x.array().square()) / S(x.cols())) + S(kRmsEps)).rsqrt().matrix();  // [T]
  return r.asDiagonal() * x;
}

namespace {

bool same_config(const DecoderConfig& a, const DecoderConfig& b) {
  return a.vocab == b.vocab && a.d_model == b.d_model && a.heads == b.heads && a.layers == b.layers &&
         a.d_ff == b.d_ff && a.position == b.position && a.max_position == b.max_position && a.base == b.base &&
         a.pairing == b.pairing && a.inv_freq == b.inv_freq && a.attention_factor == b.attention_factor;
}

// Each row's position into ws.position; position tables for positions up to the largest (computed afresh only when
// it grows) and the stride; the score bias by distance (every call: t5's follows rel_bias).
template <class S>
void ensure_tables(const DecoderConfig& c, const DecoderWeightsT<S>& w, const SequenceBatch& b,
                   DecoderWorkspace<S>& ws) {
  ws.position.resize(static_cast<std::size_t>(b.rows()));
  long long end = 0, before = 0;  // the largest position + 1; the most a row's position falls below an earlier one's
  for (int s = 0; s < b.sequences(); ++s) {
    const std::size_t r0 = static_cast<std::size_t>(b.start[static_cast<std::size_t>(s)]);
    long long top = -1;  // the largest position of the sequence's earlier rows
    for (int t = 0; t < b.length[static_cast<std::size_t>(s)]; ++t) {
      const long long p = b.position.empty() ? t : b.position[r0 + static_cast<std::size_t>(t)];
      ws.position[r0 + static_cast<std::size_t>(t)] = p;
      before = std::max(before, top - p);
      top = std::max(top, p);
      end = std::max(end, p + 1);
    }
  }
  ws.stride = std::max(ws.stride, b.max_length);
  if (end > ws.table_rows) {
    ws.pos = position_tables<S>(c, 0, end);
    ws.table_rows = end;
  }
  ws.before = std::max(ws.before, before);
  score_bias_by_distance(c, w, ws.pos, ws.before, ws.table_rows, ws.bias);
}

// n = x / sqrt(mean(x^2) + 1e-5) row by row, r = the 1/rms factors, y = n * g.
template <class S, class X, class N, class R, class Y>
void rms_norm(const X& x, N n, R r, const RowVec<S>& g, Y y) {
  r = ((fixed_row_sums(x.array().square()) / S(x.cols())) + S(kRmsEps)).rsqrt().matrix();
  n = r.asDiagonal() * x;
  y = n * g.asDiagonal();
}

// h = tok_emb[x] (+ pos_emb[p] or PE(p), p the row's position)  # [rows, d_model]
template <class S>
void embed(const DecoderConfig& c, const DecoderWeightsT<S>& w, const SequenceBatch& b, DecoderWorkspace<S>& ws) {
  auto h = grow(ws.h, b.rows(), c.d_model);
  for (int s = 0; s < b.sequences(); ++s)
    for (int t = 0; t < b.length[static_cast<std::size_t>(s)]; ++t) {
      const int r = b.start[static_cast<std::size_t>(s)] + t;
      h.row(r) = w.tok_emb.row(b.tokens[static_cast<std::size_t>(r)]);
      add_input_position(c, w, ws.pos, ws.position[static_cast<std::size_t>(r)], h.row(r).data());
    }
}

// Causal softmax attention of every head of every sequence for the query rows q; fills L.p and L.o from L.qkv.
template <class S>
void attention(const DecoderConfig& c, const SequenceBatch& b, const DecoderWorkspace<S>& ws, const QueryRows& q,
               LayerBuffers<S>& L) {
  const Eigen::Index d = c.d_model, dh = c.d_head(), ld = 3 * d, stride = ws.stride;
  const S scale = S(1) / std::sqrt(S(dh));
  const bool biased = ws.bias.size() > 0;  // alibi, t5
  grow(L.p, q.rows, c.heads * stride);
  grow(L.o, q.rows, d).setZero();
  for (int s = 0; s < b.sequences(); ++s) {
    const Eigen::Index r0 = b.start[static_cast<std::size_t>(s)], T = b.length[static_cast<std::size_t>(s)];
    const Eigen::Index i0 = q.first(s), c0 = q.start[s] - i0;  // query i is row c0 + i of L.p and L.o
    const long long* pos = ws.position.data() + r0;            // row i at position pos[i]
    for (int n = 0; n < c.heads; ++n) {
      const S* x = L.qkv.data() + r0 * ld + n * dh;  // q_i of head n at x + i * ld, k_i at + d, v_i at + 2d
      const S* bias = biased ? ws.bias.data() + n * ws.bias.cols() + ws.before : nullptr;  // bias[r]: distance r
      for (Eigen::Index i = i0; i < T; ++i) {
        S* p = L.p.data() + (c0 + i) * L.p.cols() + n * stride;
        for (Eigen::Index j = 0; j <= i; ++j)  // s = q.k / sqrt(d_head) (+ bias(n, p_i - p_j))
          p[j] = dot(x + i * ld, x + j * ld + d, dh) * scale + (biased ? bias[pos[i] - pos[j]] : S(0));
        Eigen::Map<Eigen::Array<S, 1, Eigen::Dynamic>> row(p, i + 1);
        row = math::exp(row - row.maxCoeff());
        row /= fixed_sum(row);               // softmax over j <= i
        std::fill(p + i + 1, p + T, S(0));  // causal mask
        S* o = L.o.data() + (c0 + i) * d + n * dh;
        for (Eigen::Index j = 0; j <= i; ++j) axpy(p[j], x + j * ld + 2 * d, o, dh);
      }
    }
  }
}

// One pre-norm layer: reads the residual stream ws.h (every row) and leaves its output for the query rows q in
// `stream`: ws.h itself, updated in place, when q is every row; else the gathered rows. L keeps what the backward
// pass needs.
template <class S>
void layer_forward(const DecoderConfig& c, const LayerWeights<S>& W, const RowMat<S>& wqkv, const SequenceBatch& b,
                   DecoderWorkspace<S>& ws, LayerBuffers<S>& L, bool keep, const QueryRows& q, RowMat<S>& stream) {
  const Eigen::Index N = b.rows(), M = q.rows, d = c.d_model, f = c.d_ff;
  const auto h = ws.h.topRows(N);
  if (keep) grow(L.h_in, N, d) = h;
  rms_norm(h, grow(L.n1, N, d), grow(L.r1, N), W.norm1, grow(L.a, N, d));  // a = rms(h) * norm1
  matmul(L.a.topRows(N), wqkv, grow(L.qkv, N, 3 * d));                     // q, k, v = a@wq, a@wk, a@wv
  rotate_qk(c, ws.pos, ws.position.data(), L.qkv, N, 2 * d, +1);           // q and k, side by side
  attention(c, b, ws, q, L);
  if (&stream != &ws.h) {  // gather the query rows of the residual stream
    grow(stream, M, d);
    for (int s = 0; s < b.sequences(); ++s) {
      const int t0 = q.first(s), T = b.length[static_cast<std::size_t>(s)];
      stream.middleRows(q.start[s], T - t0) = h.middleRows(b.start[static_cast<std::size_t>(s)] + t0, T - t0);
    }
  }
  auto hq = stream.topRows(M);
  matmul(L.o.topRows(M), W.wo, hq, true);  // h = h + o @ wo
  grow(L.h_mid, M, d) = hq;
  rms_norm(hq, grow(L.n2, M, d), grow(L.r2, M), W.norm2, grow(L.b, M, d));
  matmul(L.b.topRows(M), W.w1, grow(L.u, M, f));
  const auto u = L.u.topRows(M).array();
  grow(L.cdf, M, f) = (S(0.5) * (S(1) + math::erf(u * S(0.70710678118654752440)))).matrix();  // Phi(u), exact GELU
  grow(L.g, M, f) = (u * L.cdf.topRows(M).array()).matrix();
  matmul(L.g.topRows(M), W.w2, hq, true);  // h = h + gelu(b @ w1) @ w2
}

// Mean cross-entropy over targets >= 0 of the output rows; with keep, ws.dlogits = (softmax - onehot) / counted
// there, 0 on the other rows.
template <class S>
S loss_forward(const SequenceBatch& b, DecoderWorkspace<S>& ws, bool keep) {
  ws.counted = 0;
  for (long long y : b.targets) ws.counted += y >= 0;
  if (keep) grow(ws.dlogits, ws.out_rows, ws.logits.cols()).setZero();
  S total = 0;
  for (int s = 0; s < b.sequences(); ++s)
    for (int t = ws.out_from[static_cast<std::size_t>(s)]; t < b.length[static_cast<std::size_t>(s)]; ++t) {
      const long long y = b.targets[static_cast<std::size_t>(b.start[static_cast<std::size_t>(s)] + t)];
      if (y < 0) continue;
      const Eigen::Index r = ws.out_start[static_cast<std::size_t>(s)] + t - ws.out_from[static_cast<std::size_t>(s)];
      const auto z = ws.logits.row(r);
      const S top = z.maxCoeff();
      const S sum = fixed_sum(math::exp(z.array() - top));
      total += top + math::log(sum) - z(static_cast<Eigen::Index>(y));
      if (!keep) continue;
      auto dz = ws.dlogits.row(r);
      dz = (math::exp(z.array() - top) / sum).matrix();
      dz(static_cast<Eigen::Index>(y)) -= S(1);
      dz /= S(ws.counted);
    }
  return ws.counted > 0 ? total / S(ws.counted) : S(0);
}

// The last layer's output rows: every row, or each sequence from its first target on (T when it has none).
template <class S>
void output_rows(const SequenceBatch& b, bool all_rows, DecoderWorkspace<S>& ws) {
  ws.out_from.clear();
  ws.out_start.clear();
  ws.out_rows = 0;
  for (int s = 0; s < b.sequences(); ++s) {
    const int r0 = b.start[static_cast<std::size_t>(s)], T = b.length[static_cast<std::size_t>(s)];
    int from = all_rows ? 0 : T;
    for (int t = 0; t < from; ++t)
      if (b.targets[static_cast<std::size_t>(r0 + t)] >= 0) from = t;
    ws.out_from.push_back(from);
    ws.out_start.push_back(ws.out_rows);
    ws.out_rows += T - from;
  }
}

// Shapes the workspace for this config and batch: a new config starts afresh; packs [wq | wk | wv].
template <class S>
void prepare(const DecoderConfig& c, const DecoderWeightsT<S>& w, const SequenceBatch& b, DecoderWorkspace<S>& ws,
             bool keep, bool all_rows) {
  if (!ws.config || !same_config(*ws.config, c)) {
    ws = DecoderWorkspace<S>();
    ws.config = c;
  }
  ws.rows = b.rows();
  ensure_tables(c, w, b, ws);
  output_rows(b, all_rows, ws);
  const std::size_t layers = keep ? w.layer.size() : 1;
  if (ws.layer.size() < layers) ws.layer.resize(layers);
  ws.wqkv.resize(w.layer.size());
  const Eigen::Index d = c.d_model;
  for (std::size_t j = 0; j < w.layer.size(); ++j) {
    RowMat<S>& m = ws.wqkv[j];
    if (m.rows() != d || m.cols() != 3 * d) m.resize(d, 3 * d);
    m.leftCols(d) = w.layer[j].wq;
    m.middleCols(d, d) = w.layer[j].wk;
    m.rightCols(d) = w.layer[j].wv;
  }
}

}  // namespace
}  // namespace rv::detail

namespace rv {

template <class S>
S batch_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const SequenceBatch& b, DecoderWorkspace<S>& ws,
                bool for_backward, bool all_rows) {
  detail::prepare(c, w, b, ws, for_backward, all_rows);
  detail::embed(c, w, b, ws);
  const detail::QueryRows every{nullptr, b.start.data(), b.rows()};
  const detail::QueryRows out{ws.out_from.data(), ws.out_start.data(), ws.out_rows};
  for (std::size_t j = 0; j < w.layer.size(); ++j) {
    const bool last = j + 1 == w.layer.size();
    detail::layer_forward(c, w.layer[j], ws.wqkv[j], b, ws, ws.layer[for_backward ? j : 0], for_backward,
                          last ? out : every, last ? ws.out : ws.h);
  }
  const Eigen::Index M = ws.out_rows, d = c.d_model;
  detail::rms_norm(ws.out.topRows(M), detail::grow(ws.n_f, M, d), detail::grow(ws.r_f, M), w.norm_f,
                   detail::grow(ws.f, M, d));
  detail::matmul(ws.f.topRows(M), w.head, detail::grow(ws.logits, M, c.vocab));  // [out_rows, vocab]
  ws.loss = detail::loss_forward(b, ws, for_backward);
  return ws.loss;
}

}  // namespace rv

namespace rv::detail {

namespace {
// Sequence s's rows of the buffer's first `cols` columns from column `col`.
template <class S>
RowMat<S> rows_of(const RowMat<S>& m, const SequenceBatch& b, int s, Eigen::Index col, Eigen::Index cols) {
  return m.block(b.start[static_cast<std::size_t>(s)], col, b.length[static_cast<std::size_t>(s)], cols);
}
template <class S>
ColVec<S> rows_of(const ColVec<S>& v, const SequenceBatch& b, int s) {
  return v.segment(b.start[static_cast<std::size_t>(s)], b.length[static_cast<std::size_t>(s)]);
}

// Sequence s's part of the batched layer buffers, as the per-sequence cache.
template <class S>
LayerCache<S> layer_cache(const DecoderConfig& c, const DecoderWorkspace<S>& ws, const LayerBuffers<S>& L,
                          const SequenceBatch& b, int s) {
  const Eigen::Index d = c.d_model, f = c.d_ff, T = b.length[static_cast<std::size_t>(s)];
  LayerCache<S> out;
  out.h_in = rows_of(L.h_in, b, s, 0, d);
  out.n1 = rows_of(L.n1, b, s, 0, d);
  out.a = rows_of(L.a, b, s, 0, d);
  out.q = rows_of(L.qkv, b, s, 0, d);
  out.k = rows_of(L.qkv, b, s, d, d);
  out.v = rows_of(L.qkv, b, s, 2 * d, d);
  out.o = rows_of(L.o, b, s, 0, d);
  out.h_mid = rows_of(L.h_mid, b, s, 0, d);
  out.n2 = rows_of(L.n2, b, s, 0, d);
  out.b = rows_of(L.b, b, s, 0, d);
  out.u = rows_of(L.u, b, s, 0, f);
  out.g = rows_of(L.g, b, s, 0, f);
  out.r1 = rows_of(L.r1, b, s);
  out.r2 = rows_of(L.r2, b, s);
  for (int n = 0; n < c.heads; ++n) out.p.push_back(rows_of(L.p, b, s, n * ws.stride, T));
  return out;
}
}  // namespace

template <class S>
ForwardPass<S> run_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const TokenRows& tokens,
                           const TokenRows& targets, const TokenRows* positions) {
  const SequenceBatch b = sequence_batch(tokens, targets, positions);
  DecoderWorkspace<S> ws;
  ForwardPass<S> fp;
  fp.loss = batch_forward(c, w, b, ws, true, true);  // every row: out_start = start
  fp.counted = ws.counted;
  fp.pos = ws.pos;  // for positions 0 .. the largest
  for (int s = 0; s < b.sequences(); ++s) {
    SequenceCache<S> sc;
    for (const LayerBuffers<S>& L : ws.layer) sc.layer.push_back(layer_cache(c, ws, L, b, s));
    sc.h_last = rows_of(ws.out, b, s, 0, c.d_model);
    sc.n_f = rows_of(ws.n_f, b, s, 0, c.d_model);
    sc.f = rows_of(ws.f, b, s, 0, c.d_model);
    sc.logits = rows_of(ws.logits, b, s, 0, c.vocab);
    sc.r_f = rows_of(ws.r_f, b, s);
    fp.seq.push_back(std::move(sc));
  }
  return fp;
}

}  // namespace rv::detail

namespace rv {

template <class S>
Expected<detail::ForwardPass<S>> detail::checked_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                                         const TokenRows& tokens, const TokenRows& targets,
                                                         const TokenRows* positions) {
  if (auto e = detail::check_inputs(c, w, tokens, targets, positions)) return *e;
  detail::ForwardPass<S> fp = detail::run_forward(c, w, tokens, targets, positions);
  if (fp.counted == 0) return detail::no_counted_targets();
  return fp;
}

template <class S>
Expected<SequenceBatch> detail::checked_batch_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                                      const TokenRows& tokens, const TokenRows& targets,
                                                      const TokenRows* positions, DecoderWorkspace<S>& ws,
                                                      bool for_backward, bool all_rows) {
  if (auto e = detail::check_inputs(c, w, tokens, targets, positions)) return *e;
  SequenceBatch b = sequence_batch(tokens, targets, positions);
  batch_forward(c, w, b, ws, for_backward, all_rows);
  if (ws.counted == 0) return detail::no_counted_targets();
  return b;
}

template <class S>
Expected<DecoderOutput<S>> decoder_forward(const DecoderConfig& c, const DecoderWeightsT<S>& w, const TokenRows& tokens,
                                           const TokenRows& targets, const TokenRows* positions) {
  DecoderWorkspace<S> ws;
  const Expected<SequenceBatch> b = detail::checked_batch_forward(c, w, tokens, targets, positions, ws, false, true);
  if (!b) return b.error();
  DecoderOutput<S> out{ws.loss, {}};
  for (int s = 0; s < b->sequences(); ++s) out.logits.push_back(detail::rows_of(ws.logits, *b, s, 0, c.vocab));
  return out;
}

#define RV_DECODER_FORWARD(S)                                                                                          \
  template Expected<DecoderOutput<S>> decoder_forward(const DecoderConfig&, const DecoderWeightsT<S>&,                 \
                                                      const TokenRows&, const TokenRows&, const TokenRows*);           \
  template S batch_forward(const DecoderConfig&, const DecoderWeightsT<S>&, const SequenceBatch&,                      \
                           DecoderWorkspace<S>&, bool, bool);                                                          \
  template Expected<detail::ForwardPass<S>> detail::checked_forward(                                                   \
      const DecoderConfig&, const DecoderWeightsT<S>&, const TokenRows&, const TokenRows&, const TokenRows*);          \
  template detail::ForwardPass<S> detail::run_forward(const DecoderConfig&, const DecoderWeightsT<S>&,                 \
                                                      const TokenRows&, const TokenRows&, const TokenRows*);           \
  template Expected<SequenceBatch> detail::checked_batch_forward(const DecoderConfig&, const DecoderWeightsT<S>&,      \
                                                                 const TokenRows&, const TokenRows&, const TokenRows*, \
                                                                 DecoderWorkspace<S>&, bool, bool);                    \
  template RowMat<S> detail::rms_rows(const RowMat<S>&, detail::ColVec<S>&);
RV_DECODER_FORWARD(double)
RV_DECODER_FORWARD(float)
#undef RV_DECODER_FORWARD

}  // namespace rv
