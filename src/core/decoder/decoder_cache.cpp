// KV-cache decoding for the tiny decoder: the forward pass of one new position against cached keys and values.
#include "core/decoder/decoder_cache.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "core/base/fixed_sum.hpp"
#include "core/base/portable_math.hpp"
#include "core/decoder/decoder_internal.hpp"
#include "core/base/matmul.hpp"

namespace rv {
namespace {

using detail::ColVec;
using detail::PositionTables;

template <class S>
S gelu(S x) {
  return S(0.5) * x * (S(1) + math::erf(x / std::sqrt(S(2))));  // exact (erf) GELU, as decoder_forward
}

// a @ b with the decoder's own loops (core/base/matmul.hpp), as the full forward pass multiplies: Eigen's product
// kernels would be linked for these row-at-a-time products alone (about 10 KB of the page's wasm).
template <class S, class A, class B>
RowMat<S> times(const A& a, const B& b) {
  RowMat<S> out(a.rows(), b.cols());
  detail::matmul(a, b, out);
  return out;
}

template <class S>
void append_row(RowMat<S>& m, const RowMat<S>& row) {
  m.conservativeResize(m.rows() + 1, Eigen::NoChange);
  m.row(m.rows() - 1) = row;
}

// The query at position p against every cached key (its own, the last, included), key j at key_position[j]: one
// softmax row per head, into rows.
template <class S>
RowMat<S> attend(const DecoderConfig& c, const DecoderWeightsT<S>& w, const PositionTables<S>& pos, const RowMat<S>& q,
                 const LayerKV<S>& kv, const std::vector<long long>& key_position, long long p,
                 std::vector<RowVec<S>>& rows) {
  const Eigen::Index keys = kv.k.rows();
  const Eigen::Index dh = c.d_head();
  const S scale = S(1) / std::sqrt(S(dh));
  RowMat<S> o(1, c.d_model);  // [1, d_model]
  std::vector<S> scratch;
  rows.assign(static_cast<std::size_t>(c.heads), RowVec<S>());
  for (int n = 0; n < c.heads; ++n) {
    RowVec<S> s(keys);
    detail::matmul_nt(q.middleCols(n * dh, dh), kv.k.middleCols(n * dh, dh), s, scratch);  // q . k_j, every key
    s *= scale;
    for (Eigen::Index j = 0; j < keys; ++j)
      s(j) += detail::score_bias(c, w, pos, n, p, key_position[static_cast<std::size_t>(j)]);
    s = math::exp(s.array() - s.maxCoeff()).matrix();
    s /= fixed_sum(s);  // softmax over the cached rows
    detail::matmul(s, kv.v.middleCols(n * dh, dh), o.middleCols(n * dh, dh));
    rows[static_cast<std::size_t>(n)] = std::move(s);
  }
  return o;
}

// One pre-norm layer for the new token at position p; appends its key (rope: rotated at p) and value to kv.
template <class S>
RowMat<S> layer_step(const DecoderConfig& c, const DecoderWeightsT<S>& w, const PositionTables<S>& pos,
                     const LayerWeights<S>& W, const RowMat<S>& h, LayerKV<S>& kv,
                     const std::vector<long long>& key_position, long long p, std::vector<RowVec<S>>& attention_rows,
                     RowVec<S>& key_before_rope) {
  ColVec<S> r;
  const RowMat<S> a = detail::rms_rows(h, r) * W.norm1.asDiagonal();  // a = rms(h) * norm1
  RowMat<S> q = times<S>(a, W.wq), k = times<S>(a, W.wk);
  key_before_rope = k;
  detail::rotate_qk(c, pos, p, q.data(), q.cols(), +1);
  detail::rotate_qk(c, pos, p, k.data(), k.cols(), +1);  // the only rotation this key ever gets
  append_row(kv.k, k);
  append_row(kv.v, times<S>(a, W.wv));
  const RowMat<S> h_mid = h + times<S>(attend(c, w, pos, q, kv, key_position, p, attention_rows), W.wo);
  const RowMat<S> b = detail::rms_rows(h_mid, r) * W.norm2.asDiagonal();
  const RowMat<S> f = times<S>(b, W.w1).unaryExpr([](S x) { return gelu(x); });
  return h_mid + times<S>(f, W.w2);
}

// Validated inputs only: the token at position p.
template <class S>
DecodeStep<S> decode_unchecked(const DecoderConfig& c, const DecoderWeightsT<S>& w, DecoderCache<S>& cache,
                               long long token, long long p) {
  if (cache.layer.empty())
    cache.layer.assign(w.layer.size(), LayerKV<S>{RowMat<S>(0, c.d_model), RowMat<S>(0, c.d_model)});
  if (cache.position.empty())  // a cache made by hand: row j at position j
    for (long long j = 0; j < cache.positions(); ++j) cache.position.push_back(j);
  cache.position.push_back(p);
  DecodeStep<S> step;
  step.position = p;
  step.token = token;
  step.attention.resize(w.layer.size());
  step.key_before_rope.resize(w.layer.size());
  const PositionTables<S> pos = detail::position_tables<S>(c, step.position, 1);  // position p: row 0
  RowMat<S> h = w.tok_emb.row(token);  // + pos_emb[p] or PE(p)  # [1, d_model]
  detail::add_input_position(c, w, pos, step.position, h.data());
  for (std::size_t j = 0; j < w.layer.size(); ++j)
    h = layer_step(c, w, pos, w.layer[j], h, cache.layer[j], cache.position, step.position, step.attention[j],
                   step.key_before_rope[j]);
  ColVec<S> r;
  step.logits = times<S>(RowMat<S>(detail::rms_rows(h, r) * w.norm_f.asDiagonal()), w.head);  // [vocab]
  return step;
}

template <class S>
std::optional<Error> check_model(const DecoderConfig& c, const DecoderWeightsT<S>& w) {
  if (auto e = check_decoder_config(c)) return e;
  return check_decoder_weights(c, w);
}

template <class S>
std::optional<Error> check_cache(const DecoderConfig& c, const DecoderCache<S>& cache) {
  if (cache.layer.empty()) return std::nullopt;
  if (cache.layer.size() != static_cast<std::size_t>(c.layers))
    return bad_request("cache has " + std::to_string(cache.layer.size()) + " layers, config says " +
                       std::to_string(c.layers));
  for (const LayerKV<S>& kv : cache.layer)
    if (kv.k.cols() != c.d_model || kv.v.cols() != c.d_model || kv.k.rows() != cache.positions() ||
        kv.v.rows() != cache.positions())
      return bad_request("cache keys and values must all be [" + std::to_string(cache.positions()) + ", " +
                         std::to_string(c.d_model) + "]");
  if (!cache.position.empty() && static_cast<long long>(cache.position.size()) != cache.positions())
    return bad_request("cache positions must be one per row (" + std::to_string(cache.positions()) + "), got " +
                       std::to_string(cache.position.size()));
  for (long long p : cache.position)
    if (p < 0) return bad_request("cache positions must be >= 0, got " + std::to_string(p));
  return std::nullopt;
}

// decoder_forward's errors for a token at this position.
std::optional<Error> check_token(const DecoderConfig& c, long long token, long long position) {
  if (token < 0 || token >= c.vocab) return index_error(token, c.vocab);
  if (position < 0) return bad_request("\"positions\" must be >= 0, got " + std::to_string(position));
  if (c.position == PositionMethod::Learned && position >= c.max_position)
    return index_error(position, c.max_position);  // as decoder_forward: a position past the table
  return std::nullopt;
}

// decoder_forward's errors for one row of tokens at these positions (its targets are irrelevant here: all 0).
std::optional<Error> check_row(const DecoderConfig& c, const std::vector<long long>& tokens,
                               const std::vector<long long>* positions) {
  const TokenRows at = positions ? TokenRows{*positions} : TokenRows{};
  return detail::check_batch(c, {tokens}, {std::vector<long long>(tokens.size(), 0)}, positions ? &at : nullptr);
}

// Token k of a row at positions[k], else at k.
long long position_at(const std::vector<long long>* positions, std::size_t k) {
  return positions ? (*positions)[k] : static_cast<long long>(k);
}

template <class S>
long long argmax(const RowVec<S>& z) {
  Eigen::Index i = 0;
  z.maxCoeff(&i);  // the first index on a tie
  return static_cast<long long>(i);
}

}  // namespace

template <class S>
Expected<DecodeStep<S>> decoder_decode_step(const DecoderConfig& c, const DecoderWeightsT<S>& w, DecoderCache<S>& cache,
                                            long long token, std::optional<long long> position) {
  if (auto e = check_model(c, w)) return *e;
  if (auto e = check_cache(c, cache)) return *e;
  const long long p = position.value_or(cache.positions());
  if (auto e = check_token(c, token, p)) return *e;
  return decode_unchecked(c, w, cache, token, p);
}

template <class S>
Expected<Generation<S>> decoder_generate(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                         const std::vector<long long>& prompt, int new_tokens,
                                         const std::vector<long long>* positions) {
  if (auto e = check_model(c, w)) return *e;
  if (prompt.empty()) return bad_request("\"prompt\" must be non-empty");
  if (new_tokens < 0) return bad_request("\"new_tokens\" must be >= 0, got " + std::to_string(new_tokens));
  if (auto e = check_row(c, prompt, positions)) return *e;
  Generation<S> g;
  g.tokens = prompt;
  g.prompt_length = static_cast<long long>(prompt.size());
  for (std::size_t k = 0; k < prompt.size(); ++k)
    g.steps.push_back(decode_unchecked(c, w, g.cache, prompt[k], position_at(positions, k)));
  for (int n = 0; n < new_tokens; ++n) {
    g.tokens.push_back(argmax(g.steps.back().logits));
    if (n + 1 == new_tokens) break;  // the last token's logits are not needed
    const long long next = g.steps.back().position + 1;
    if ((g.error = check_token(c, g.tokens.back(), next))) break;
    g.steps.push_back(decode_unchecked(c, w, g.cache, g.tokens.back(), next));
  }
  return g;
}

template <class S>
Expected<AttentionMaps<S>> decoder_attention(const DecoderConfig& c, const DecoderWeightsT<S>& w,
                                             const std::vector<long long>& tokens,
                                             const std::vector<long long>* positions) {
  if (auto e = check_model(c, w)) return *e;
  if (auto e = check_row(c, tokens, positions)) return *e;
  const Eigen::Index T = static_cast<Eigen::Index>(tokens.size());
  AttentionMaps<S> maps(w.layer.size(),
                        std::vector<RowMat<S>>(static_cast<std::size_t>(c.heads), RowMat<S>::Zero(T, T)));
  DecoderCache<S> cache;
  for (Eigen::Index i = 0; i < T; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    const DecodeStep<S> step = decode_unchecked(c, w, cache, tokens[k], position_at(positions, k));
    for (std::size_t j = 0; j < maps.size(); ++j)
      for (std::size_t n = 0; n < maps[j].size(); ++n) maps[j][n].row(i).head(i + 1) = step.attention[j][n];
  }
  return maps;
}

#define RV_DECODER_CACHE(S)                                                                                    \
  template Expected<DecodeStep<S>> decoder_decode_step(const DecoderConfig&, const DecoderWeightsT<S>&,        \
                                                       DecoderCache<S>&, long long, std::optional<long long>); \
  template Expected<Generation<S>> decoder_generate(const DecoderConfig&, const DecoderWeightsT<S>&,           \
                                                    const std::vector<long long>&, int,                        \
                                                    const std::vector<long long>*);                            \
  template Expected<AttentionMaps<S>> decoder_attention(const DecoderConfig&, const DecoderWeightsT<S>&,       \
                                                        const std::vector<long long>&, const std::vector<long long>*);
RV_DECODER_CACHE(double)
RV_DECODER_CACHE(float)
#undef RV_DECODER_CACHE

}  // namespace rv
