// The forward pass's layers (core/infer/layer_ops.hpp), as modeling_llama.py, modeling_qwen3.py, modeling_gemma.py
// and modeling_gpt2.py compute them in float32.
#include "core/infer/layer_ops.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/fixed_sum.hpp"
#include "core/base/matmul.hpp"
#include "core/base/portable_math.hpp"

namespace rv {
namespace {

using detail::matmul;
using detail::matmul_nt;

std::string shape_text(const std::vector<long long>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string at_layer(const char* prefix, int l, const char* name) {
  return std::string(prefix) + std::to_string(l) + "." + name;
}

// A tensor's first (or second) dimension, or -1 when it is missing: the sizes a family leaves to the weights.
long long dim_of(const TensorReader& read, const std::string& name, std::size_t axis) {
  const TensorInfo* t = read.c.find(name);
  return t && t->shape.size() > axis ? t->shape[axis] : -1;
}

float activate(float x, InferAct act) {
  switch (act) {
    case InferAct::Silu:
      return x / (1.0f + math::exp(-x));
    case InferAct::Gelu:
      return 0.5f * x * (1.0f + math::erf(x * 0.70710678118654752f));
    case InferAct::GeluTanh: {  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), tanh(y) = sign(y)(1 - e)/(1 + e)
      const float y = 0.7978845608028654f * (x + 0.044715f * x * x * x);
      const float e = math::exp(-2.0f * std::fabs(y));
      const float th = (1.0f - e) / (1.0f + e);
      return 0.5f * x * (1.0f + (y < 0 ? -th : th));
    }
  }
  return x;
}

// y = x W^T (+ b) for a weight stored [out, in].
Expected<RowMatrixXf> linear(const LayerContext& ctx, const RowMatrixXf& x, const std::string& name, long long out,
                             long long in, std::vector<float>& scratch) {
  Expected<RowMatrixXf> w = ctx.read(name + ".weight", {out, in});
  if (!w) return w.error();
  RowMatrixXf y(x.rows(), out);
  matmul_nt(x, *w, y, scratch);
  if (ctx.read.has(name + ".bias")) {
    Expected<RowMatrixXf> b = ctx.read(name + ".bias", {out});
    if (!b) return b.error();
    y.rowwise() += b->row(0);
  }
  return y;
}

// y = x W + b for GPT-2's Conv1D, its weight stored [in, out].
Expected<RowMatrixXf> conv1d(const LayerContext& ctx, const RowMatrixXf& x, const std::string& name, long long in,
                             long long out) {
  Expected<RowMatrixXf> w = ctx.read(name + ".weight", {in, out});
  if (!w) return w.error();
  Expected<RowMatrixXf> b = ctx.read(name + ".bias", {out});
  if (!b) return b.error();
  RowMatrixXf y(x.rows(), out);
  matmul(x, *w, y);
  y.rowwise() += b->row(0);
  return y;
}

// Each row's RMS norm (times w, or 1 + w for Gemma) over `width` columns at a time: the whole row, or each head.
void rms_rows(RowMatrixXf& x, const float* w, Eigen::Index width, InferNorm norm, float eps) {
  for (Eigen::Index r = 0; r < x.rows(); ++r)
    for (Eigen::Index c0 = 0; c0 < x.cols(); c0 += width) {
      float* v = x.row(r).data() + c0;
      const float ms = fixed_sum<float>(width, [v](Eigen::Index i) { return v[i] * v[i]; }) / float(width);
      const float inv = 1.0f / std::sqrt(ms + eps);
      for (Eigen::Index i = 0; i < width; ++i) v[i] = norm == InferNorm::RmsPlusOne ? (v[i] * inv) * (1.0f + w[i])
                                                                                    : w[i] * (v[i] * inv);
    }
}

// Rotates the first rotary_dims of each head of m [T, heads * head_dim] by position * theta_i, cos and sin times the
// attention factor, as apply_rotary_pos_emb with rotate_half (half_split) or every two (interleaved).
void rotate(RowMatrixXf& m, int heads, int head_dim, const RopeModel& rope, const std::vector<long long>& pos) {
  const int half = rope.rotary_dims / 2;
  const float af = float(rope.attention_factor);
  std::vector<float> cs(static_cast<std::size_t>(half)), sn(static_cast<std::size_t>(half));
  for (Eigen::Index t = 0; t < m.rows(); ++t) {
    for (int i = 0; i < half; ++i) {
      const double angle = double(pos[std::size_t(t)]) * rope.inv_freq[i];
      cs[std::size_t(i)] = float(std::cos(angle)) * af;
      sn[std::size_t(i)] = float(std::sin(angle)) * af;
    }
    for (int h = 0; h < heads; ++h) {
      float* x = m.row(t).data() + std::size_t(h) * std::size_t(head_dim);
      for (int i = 0; i < half; ++i) {
        const int a = rope.pairing == Pairing::HalfSplit ? i : 2 * i;
        const int b = rope.pairing == Pairing::HalfSplit ? i + half : 2 * i + 1;
        const float x1 = x[a], x2 = x[b], c = cs[std::size_t(i)], s = sn[std::size_t(i)];
        x[a] = x1 * c - x2 * s;
        x[b] = x2 * c + x1 * s;
      }
    }
  }
}

// o [T, heads * head_dim] = causal softmax(q k^T scaled) v per head, one query row at a time; key head h / group.
// divide: scores / sqrt(head_dim) (GPT-2) rather than * head_dim^-0.5.
RowMatrixXf attend(const LayerContext& ctx, int layer, const RowMatrixXf& q, const RowMatrixXf& k,
                   const RowMatrixXf& v, bool divide, AttentionStats& stats) {
  const Eigen::Index T = q.rows(), hd = ctx.head_dim;
  const int group = ctx.heads / ctx.kv_heads;
  const float scale = float(1.0 / std::sqrt(double(hd))), root = float(std::sqrt(double(hd)));
  RowMatrixXf o = RowMatrixXf::Zero(T, q.cols());
  if (stats.by_distance_on) stats.by_distance.emplace_back(std::size_t(ctx.heads), std::vector<double>(std::size_t(T)));
  if (stats.sink_on) stats.sink.emplace_back(std::size_t(ctx.heads), 0.0);
  std::vector<float> p(static_cast<std::size_t>(T));
  for (int h = 0; h < ctx.heads; ++h) {
    const Eigen::Index qc = Eigen::Index(h) * hd, kc = Eigen::Index(h / group) * hd;
    for (Eigen::Index t = 0; t < T; ++t) {
      const float* qt = q.row(t).data() + qc;
      float mx = -INFINITY;
      for (Eigen::Index s = 0; s <= t; ++s) {
        const float dot = fixed_dot(qt, k.row(s).data() + kc, hd);
        p[std::size_t(s)] = divide ? dot / root : dot * scale;
        mx = std::max(mx, p[std::size_t(s)]);
      }
      for (Eigen::Index s = 0; s <= t; ++s) p[std::size_t(s)] = math::exp(p[std::size_t(s)] - mx);
      const float sum = fixed_sum<float>(t + 1, [&p](Eigen::Index s) { return p[std::size_t(s)]; });
      float* ot = o.row(t).data() + qc;
      for (Eigen::Index s = 0; s <= t; ++s) {
        const float ps = p[std::size_t(s)] / sum;
        const float* vs = v.row(s).data() + kc;
        for (Eigen::Index j = 0; j < hd; ++j) ot[j] += ps * vs[j];
        if (stats.by_distance_on) stats.by_distance.back()[std::size_t(h)][std::size_t(t - s)] += ps;
        if (stats.sink_on && s == 0 && t >= 1) stats.sink.back()[std::size_t(h)] += ps;
      }
    }
    if (stats.by_distance_on)
      for (Eigen::Index r = 0; r < T; ++r) stats.by_distance.back()[std::size_t(h)][std::size_t(r)] /= double(T - r);
    if (stats.sink_on && T > 1) stats.sink.back()[std::size_t(h)] /= double(T - 1);
  }
  (void)layer;
  return o;
}

}  // namespace

Expected<RowMatrixXf> TensorReader::operator()(const std::string& name, const std::vector<long long>& shape) const {
  const TensorInfo* t = c.find(name);
  if (!t) return bad_request("the checkpoint holds no tensor \"" + name + "\" (expected shape " + shape_text(shape) + ")");
  if (t->shape != shape)
    return bad_request("tensor \"" + name + "\" has shape " + shape_text(t->shape) + ", expected " + shape_text(shape));
  Expected<RowMatrixXd> m = c.read(*t);
  if (!m) return m.error();
  return RowMatrixXf(m->cast<float>());  // bf16, f16 and f32 widen to float exactly
}

std::optional<Error> rms_norm(const TensorReader& read, const std::string& name, InferNorm norm, RowMatrixXf& h,
                              float eps) {
  Expected<RowMatrixXf> w = read(name, {h.cols()});
  if (!w) return w.error();
  rms_rows(h, w->data(), h.cols(), norm, eps);
  return std::nullopt;
}

std::optional<Error> layer_norm(const TensorReader& read, const std::string& prefix, RowMatrixXf& h, float eps) {
  Expected<RowMatrixXf> w = read(prefix + ".weight", {h.cols()});
  if (!w) return w.error();
  Expected<RowMatrixXf> b = read(prefix + ".bias", {h.cols()});
  if (!b) return b.error();
  const Eigen::Index d = h.cols();
  for (Eigen::Index r = 0; r < h.rows(); ++r) {
    float* x = h.row(r).data();
    const float mean = fixed_sum<float>(d, [x](Eigen::Index i) { return x[i]; }) / float(d);
    const float var = fixed_sum<float>(d, [x, mean](Eigen::Index i) { return (x[i] - mean) * (x[i] - mean); }) / float(d);
    const float rstd = 1.0f / std::sqrt(var + eps);
    for (Eigen::Index i = 0; i < d; ++i) x[i] = ((x[i] - mean) * rstd) * (*w)(0, i) + (*b)(0, i);
  }
  return std::nullopt;
}

std::optional<Error> llama_layer(const LayerContext& ctx, int l, const std::optional<RopeModel>& rope, RowMatrixXf& h,
                                 AttentionStats& stats) {
  const std::string p = "model.layers." + std::to_string(l) + ".";
  const long long d = ctx.d, qw = (long long)ctx.heads * ctx.head_dim, kw = (long long)ctx.kv_heads * ctx.head_dim;
  std::vector<float> scratch;
  RowMatrixXf a = h;
  if (auto e = rms_norm(ctx.read, p + "input_layernorm.weight", ctx.family.norm, a, ctx.eps)) return e;
  Expected<RowMatrixXf> q = linear(ctx, a, p + "self_attn.q_proj", qw, d, scratch);
  if (!q) return q.error();
  Expected<RowMatrixXf> k = linear(ctx, a, p + "self_attn.k_proj", kw, d, scratch);
  if (!k) return k.error();
  Expected<RowMatrixXf> v = linear(ctx, a, p + "self_attn.v_proj", kw, d, scratch);
  if (!v) return v.error();
  if (ctx.family.qk_norm)  // Qwen3: each head's q and k RMS-normed over head_dim before the rotation
    for (auto [m, name] : {std::pair{&q.value(), "self_attn.q_norm.weight"}, {&k.value(), "self_attn.k_norm.weight"}}) {
      Expected<RowMatrixXf> w = ctx.read(p + name, {ctx.head_dim});
      if (!w) return w.error();
      rms_rows(*m, w->data(), ctx.head_dim, ctx.family.norm, ctx.eps);
    }
  if (rope) {
    rotate(q.value(), ctx.heads, ctx.head_dim, *rope, ctx.positions);
    rotate(k.value(), ctx.kv_heads, ctx.head_dim, *rope, ctx.positions);
  }
  const RowMatrixXf o = attend(ctx, l, *q, *k, *v, false, stats);
  Expected<RowMatrixXf> attn = linear(ctx, o, p + "self_attn.o_proj", d, qw, scratch);
  if (!attn) return attn.error();
  h += *attn;
  a = h;
  if (auto e = rms_norm(ctx.read, p + "post_attention_layernorm.weight", ctx.family.norm, a, ctx.eps)) return e;
  const long long inner = dim_of(ctx.read, p + "mlp.gate_proj.weight", 0);
  if (inner < 1) return bad_request("the checkpoint holds no tensor \"" + p + "mlp.gate_proj.weight\" (expected shape "
                                    "[intermediate_size, " + std::to_string(d) + "])");
  Expected<RowMatrixXf> gate = linear(ctx, a, p + "mlp.gate_proj", inner, d, scratch);
  if (!gate) return gate.error();
  Expected<RowMatrixXf> up = linear(ctx, a, p + "mlp.up_proj", inner, d, scratch);
  if (!up) return up.error();
  RowMatrixXf& g = gate.value();
  g = (g.unaryExpr([act = ctx.act](float x) { return activate(x, act); }).array() * up->array()).matrix();
  Expected<RowMatrixXf> down = linear(ctx, *gate, p + "mlp.down_proj", d, inner, scratch);
  if (!down) return down.error();
  h += *down;
  return std::nullopt;
}

std::optional<Error> gpt2_layer(const LayerContext& ctx, int l, RowMatrixXf& h, AttentionStats& stats) {
  const std::string p = at_layer("transformer.h.", l, "");
  const long long d = ctx.d;
  RowMatrixXf a = h;
  if (auto e = layer_norm(ctx.read, p + "ln_1", a, ctx.eps)) return e;
  Expected<RowMatrixXf> qkv = conv1d(ctx, a, p + "attn.c_attn", d, 3 * d);
  if (!qkv) return qkv.error();
  const RowMatrixXf q = qkv->leftCols(d), k = qkv->middleCols(d, d), v = qkv->rightCols(d);
  const RowMatrixXf o = attend(ctx, l, q, k, v, true, stats);
  Expected<RowMatrixXf> attn = conv1d(ctx, o, p + "attn.c_proj", d, d);
  if (!attn) return attn.error();
  h += *attn;
  a = h;
  if (auto e = layer_norm(ctx.read, p + "ln_2", a, ctx.eps)) return e;
  const long long inner = dim_of(ctx.read, p + "mlp.c_fc.weight", 1);
  if (inner < 1) return bad_request("the checkpoint holds no tensor \"" + p + "mlp.c_fc.weight\" (expected shape [" +
                                    std::to_string(d) + ", n_inner])");
  Expected<RowMatrixXf> fc = conv1d(ctx, a, p + "mlp.c_fc", d, inner);
  if (!fc) return fc.error();
  fc.value() = fc->unaryExpr([act = ctx.act](float x) { return activate(x, act); });
  Expected<RowMatrixXf> proj = conv1d(ctx, *fc, p + "mlp.c_proj", inner, d);
  if (!proj) return proj.error();
  h += *proj;
  return std::nullopt;
}

double token_nll(const Eigen::Ref<const Eigen::Matrix<float, 1, Eigen::Dynamic>>& logits, long long target) {
  const Eigen::Index V = logits.size();
  const float mx = logits.maxCoeff();
  const float sum = fixed_sum<float>(V, [&](Eigen::Index i) { return math::exp(logits[i] - mx); });
  return -double((logits[Eigen::Index(target)] - mx) - math::log(sum));
}

}  // namespace rv
