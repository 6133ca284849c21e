// The tiny decoder's config checks, weight table (names, shapes, init) and AdamW.
#include "core/decoder/decoder.hpp"

#include <cmath>

#include "core/base/format.hpp"
#include "core/base/names.hpp"
#include "core/encodings/biases.hpp"
#include "core/encodings/learned.hpp"
#include "core/decoder/decoder_internal.hpp"

namespace rv {

// [SECTION] Config

namespace {
constexpr Named<PositionMethod> kPositionMethodNames[] = {
    {PositionMethod::Learned, "learned"}, {PositionMethod::Sinusoidal, "sinusoidal"}, {PositionMethod::Rope, "rope"},
    {PositionMethod::Alibi, "alibi"},     {PositionMethod::T5, "t5"},                 {PositionMethod::None, "none"}};
}  // namespace

const char* position_method_name(PositionMethod m) {
  return name_of(kPositionMethodNames, m);
}

std::optional<PositionMethod> parse_position_method(std::string_view name) {
  return parse_name(kPositionMethodNames, name);
}

namespace {
constexpr int kMaxDim = 65536;  // any one size; keeps products of two sizes inside 32 bits' worth of care

std::optional<Error> check_size(const char* field, int value) {
  if (value < 1 || value > kMaxDim)
    return bad_request(std::string("\"") + field + "\" must be in [1, 65536], got " + std::to_string(value));
  return std::nullopt;
}
}  // namespace

std::optional<Error> check_decoder_config(const DecoderConfig& c) {
  const std::pair<const char*, int> sizes[] = {
      {"vocab", c.vocab}, {"d_model", c.d_model}, {"heads", c.heads}, {"layers", c.layers}, {"d_ff", c.d_ff}};
  for (const auto& [field, value] : sizes)
    if (auto e = check_size(field, value)) return e;
  if (!parse_position_method(position_method_name(c.position))) return bad_request("unknown \"position\" method");
  if (c.d_model % c.heads != 0)
    return bad_request("\"d_model\" (" + std::to_string(c.d_model) + ") must be divisible by \"heads\" (" +
                       std::to_string(c.heads) + ")");
  if (c.position == PositionMethod::Learned)
    if (auto e = check_size("max_position", c.max_position)) return e;
  if (c.position == PositionMethod::Rope) {
    if (c.d_head() % 2 != 0)
      return bad_request("rope needs an even d_head = d_model / heads, got " + std::to_string(c.d_head()));
    if (auto e = check_rope_dims(c.d_head(), c.base)) return e;
    if (!c.inv_freq.empty() && static_cast<int>(c.inv_freq.size()) != c.d_head() / 2)
      return bad_request("\"inv_freq\" must have d_head/2 = " + std::to_string(c.d_head() / 2) + " entries, got " +
                         std::to_string(c.inv_freq.size()));
    for (double f : c.inv_freq)
      if (!std::isfinite(f)) return bad_request("\"inv_freq\" must hold finite numbers, got " + format_number(f));
    if (!std::isfinite(c.attention_factor) || c.attention_factor <= 0)
      return bad_request("\"attention_factor\" must be a finite number > 0, got " + format_number(c.attention_factor));
  } else if (!c.inv_freq.empty() || c.attention_factor != 1.0) {
    return bad_request("\"inv_freq\" and \"attention_factor\" apply to rope only");
  }
  return std::nullopt;
}

Eigen::VectorXd decoder_inv_freq(const DecoderConfig& c) {
  if (c.inv_freq.empty()) return rope_inv_freq(c.d_head(), c.base);
  return Eigen::Map<const Eigen::VectorXd>(c.inv_freq.data(), static_cast<Eigen::Index>(c.inv_freq.size()));
}

// [SECTION] Weights

namespace {
template <class T, class M>
WeightRef<T> ref(std::string name, std::vector<long long> shape, M& m) {  // M: a matrix or vector, maybe const
  return WeightRef<T>{std::move(name), std::move(shape), m.data(), static_cast<long long>(m.size())};
}

// T is S or const S, W is DecoderWeightsT<S> or its const.
template <class T, class W>
std::vector<WeightRef<T>> collect_refs(const DecoderConfig& c, W& w) {
  const long long V = c.vocab, d = c.d_model, f = c.d_ff;
  std::vector<WeightRef<T>> out;
  out.push_back(ref<T>("tok_emb", {V, d}, w.tok_emb));
  if (c.position == PositionMethod::Learned) out.push_back(ref<T>("pos_emb", {c.max_position, d}, w.pos_emb));
  for (std::size_t j = 0; j < w.layer.size(); ++j) {
    auto& L = w.layer[j];
    const std::string p = "l" + std::to_string(j) + ".";
    out.push_back(ref<T>(p + "norm1", {d}, L.norm1));
    out.push_back(ref<T>(p + "wq", {d, d}, L.wq));
    out.push_back(ref<T>(p + "wk", {d, d}, L.wk));
    out.push_back(ref<T>(p + "wv", {d, d}, L.wv));
    out.push_back(ref<T>(p + "wo", {d, d}, L.wo));
    out.push_back(ref<T>(p + "norm2", {d}, L.norm2));
    out.push_back(ref<T>(p + "w1", {d, f}, L.w1));
    out.push_back(ref<T>(p + "w2", {f, d}, L.w2));
  }
  if (c.position == PositionMethod::T5) out.push_back(ref<T>("rel_bias", {kT5Buckets, c.heads}, w.rel_bias));
  out.push_back(ref<T>("norm_f", {d}, w.norm_f));
  out.push_back(ref<T>("head", {d, V}, w.head));
  return out;
}
}  // namespace

template <class S>
std::vector<WeightRef<S>> weight_refs(const DecoderConfig& c, DecoderWeightsT<S>& w) {
  return collect_refs<S>(c, w);
}
template <class S>
std::vector<WeightRef<const S>> weight_refs(const DecoderConfig& c, const DecoderWeightsT<S>& w) {
  return collect_refs<const S>(c, w);
}

std::vector<WeightRef<double>> weight_specs(const DecoderConfig& c) {
  DecoderWeights empty;
  empty.layer.resize(static_cast<std::size_t>(c.layers));
  std::vector<WeightRef<double>> specs = weight_refs(c, empty);
  for (WeightRef<double>& s : specs) {
    s.data = nullptr;
    s.size = 1;
    for (long long n : s.shape) s.size *= n;
  }
  return specs;
}

long long decoder_param_count(const DecoderConfig& c) {
  long long n = 0;
  for (const WeightRef<double>& s : weight_specs(c)) n += s.size;
  return n;
}

template <class S>
DecoderWeightsT<S> zero_weights(const DecoderConfig& c) {
  const Eigen::Index V = c.vocab, d = c.d_model, f = c.d_ff;
  DecoderWeightsT<S> w;
  w.tok_emb = RowMat<S>::Zero(V, d);
  if (c.position == PositionMethod::Learned) w.pos_emb = RowMat<S>::Zero(c.max_position, d);
  w.layer.resize(static_cast<std::size_t>(c.layers));
  for (LayerWeights<S>& L : w.layer) {
    L.norm1 = L.norm2 = RowVec<S>::Zero(d);
    L.wq = L.wk = L.wv = L.wo = RowMat<S>::Zero(d, d);
    L.w1 = RowMat<S>::Zero(d, f);
    L.w2 = RowMat<S>::Zero(f, d);
  }
  if (c.position == PositionMethod::T5) w.rel_bias = RowMat<S>::Zero(kT5Buckets, c.heads);
  w.norm_f = RowVec<S>::Zero(d);
  w.head = RowMat<S>::Zero(d, V);
  return w;
}

template <class S>
DecoderWeightsT<S> init_decoder_weights(const DecoderConfig& c, std::uint64_t seed, double stddev) {
  DecoderWeightsT<S> w = zero_weights<S>(c);
  NormalRng rng(seed);
  for (WeightRef<S>& r : weight_refs(c, w)) {
    const bool is_norm = r.shape.size() == 1;
    if (r.name == "rel_bias") continue;  // T5 starts with no bias
    for (long long i = 0; i < r.size; ++i) r.data[i] = is_norm ? S(1) : static_cast<S>(stddev * rng.normal());
  }
  return w;
}

namespace {
std::string shape_text(const std::vector<long long>& s) {
  std::string t = "[";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}
template <class M>
std::vector<long long> stored_shape(const M& m, bool vector) {
  if (vector) return {static_cast<long long>(m.size())};
  return {static_cast<long long>(m.rows()), static_cast<long long>(m.cols())};
}
template <class S>
std::vector<std::vector<long long>> stored_shapes(const DecoderConfig& c, const DecoderWeightsT<S>& w) {
  std::vector<std::vector<long long>> s{stored_shape(w.tok_emb, false)};
  if (c.position == PositionMethod::Learned) s.push_back(stored_shape(w.pos_emb, false));
  for (const LayerWeights<S>& L : w.layer) {  // the order of weight_refs: norm1, wq, wk, wv, wo, norm2, w1, w2
    s.push_back(stored_shape(L.norm1, true));
    for (const RowMat<S>* m : {&L.wq, &L.wk, &L.wv, &L.wo}) s.push_back(stored_shape(*m, false));
    s.push_back(stored_shape(L.norm2, true));
    s.push_back(stored_shape(L.w1, false));
    s.push_back(stored_shape(L.w2, false));
  }
  if (c.position == PositionMethod::T5) s.push_back(stored_shape(w.rel_bias, false));
  s.push_back(stored_shape(w.norm_f, true));
  s.push_back(stored_shape(w.head, false));
  return s;
}
}  // namespace

template <class S>
std::optional<Error> check_decoder_weights(const DecoderConfig& c, const DecoderWeightsT<S>& w) {
  if (w.layer.size() != static_cast<std::size_t>(c.layers))
    return bad_request("weights have " + std::to_string(w.layer.size()) + " layers, config says " +
                       std::to_string(c.layers));
  const std::vector<WeightRef<double>> specs = weight_specs(c);
  const std::vector<std::vector<long long>> got = stored_shapes(c, w);
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (got[i] != specs[i].shape)
      return bad_request("weight \"" + specs[i].name + "\" must be " + shape_text(specs[i].shape) + ", got " +
                         shape_text(got[i]));
  return std::nullopt;
}

// [SECTION] AdamW

template <class S>
void adamw_update(const AdamWConfig& opt, long long step, S* w, const S* g, S* m, S* v, long long n) {
  const S b1 = static_cast<S>(opt.beta1), b2 = static_cast<S>(opt.beta2), lr = static_cast<S>(opt.lr);
  const S c1 = static_cast<S>(1.0 - std::pow(opt.beta1, static_cast<double>(step)));  // bias corrections
  const S c2 = static_cast<S>(1.0 - std::pow(opt.beta2, static_cast<double>(step)));
  const S decay = static_cast<S>(1.0 - opt.lr * opt.weight_decay), eps = static_cast<S>(opt.eps);
  using Array = Eigen::Array<S, Eigen::Dynamic, 1>;  // whole-array passes: vectorized, sqrt included
  Eigen::Map<Array> W(w, n), M(m, n), V(v, n);
  const Eigen::Map<const Array> G(g, n);
  M = b1 * M + (1 - b1) * G;
  V = b2 * V + (1 - b2) * G * G;
  W = W * decay - lr * (M / c1) / ((V / c2).sqrt() + eps);
}

template <class S>
AdamWState<S> adamw_init(const DecoderConfig& c) {
  return AdamWState<S>{0, zero_weights<S>(c), zero_weights<S>(c)};
}

template <class S>
void adamw_step(const DecoderConfig& c, const AdamWConfig& opt, DecoderWeightsT<S>& w, const DecoderWeightsT<S>& grad,
                AdamWState<S>& state) {
  ++state.step;
  detail::for_each_weight(
      c, [&](S* wi, const S* gi, S* mi, S* vi, long long n) { adamw_update(opt, state.step, wi, gi, mi, vi, n); }, w,
      grad, state.m, state.v);
}

#define RV_DECODER_WEIGHTS(S)                                                                                     \
  template std::vector<WeightRef<S>> weight_refs(const DecoderConfig&, DecoderWeightsT<S>&);                      \
  template std::vector<WeightRef<const S>> weight_refs(const DecoderConfig&, const DecoderWeightsT<S>&);          \
  template DecoderWeightsT<S> zero_weights<S>(const DecoderConfig&);                                              \
  template DecoderWeightsT<S> init_decoder_weights<S>(const DecoderConfig&, std::uint64_t, double);               \
  template std::optional<Error> check_decoder_weights(const DecoderConfig&, const DecoderWeightsT<S>&);           \
  template void adamw_update(const AdamWConfig&, long long, S*, const S*, S*, S*, long long);                     \
  template AdamWState<S> adamw_init<S>(const DecoderConfig&);                                                     \
  template void adamw_step(const DecoderConfig&, const AdamWConfig&, DecoderWeightsT<S>&, const DecoderWeightsT<S>&, \
                           AdamWState<S>&);
RV_DECODER_WEIGHTS(double)
RV_DECODER_WEIGHTS(float)
#undef RV_DECODER_WEIGHTS

}  // namespace rv
