// The forward pass's layers (core/infer/layer_ops.hpp): one block for every family, its row (core/infer/family.hpp)
// choosing the norms, projections, residual and MLP, each as its modeling file computes it in float32.
#include "core/infer/layer_ops.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/fixed_sum.hpp"
#include "core/base/matmul.hpp"
#include "core/base/portable_math.hpp"
#include "core/infer/attend.hpp"
#include "core/infer/parallel.hpp"
#include "core/rope/rope.hpp"
#include "core/weights/attention_layout.hpp"

namespace rv {
namespace {

using detail::matmul;

constexpr Eigen::Index kRowBlock = 64;  // rows of activations per thread's share of a product
constexpr long long kReadRows = 1024;   // rows of a tensor decoded (through float64) at a time

std::string shape_text(const std::vector<long long>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

float activate(float x, Activation act) {
  switch (act) {
    case Activation::Silu:
      return x / (1.0f + math::exp(-x));
    case Activation::Gelu:
      return 0.5f * x * (1.0f + math::erf(x * 0.70710678118654752f));
    case Activation::Relu:
      return x > 0.0f ? x : 0.0f;
    case Activation::GeluTanh:  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      return 0.5f * x * (1.0f + math::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
  }
  return x;
}

void activate_all(RowMatrixXf& m, Activation act) {
  m = m.unaryExpr([act](float x) { return activate(x, act); });
}

// y = x W^T (+ b) for a weight stored [out, in], or x W + b for GPT-2's Conv1D ([in, out]).
Expected<RowMatrixXf> linear(const LayerContext& ctx, const RowMatrixXf& x, const std::string& name, long long out,
                             long long in) {
  const bool conv = ctx.family.conv1d;
  Expected<RowMatrixXf> w =
      ctx.read(name + ".weight", conv ? std::vector<long long>{in, out} : std::vector<long long>{out, in});
  if (!w) return w.error();
  RowMatrixXf y(x.rows(), out);
  const RowMatrixXf wt = conv ? RowMatrixXf() : RowMatrixXf(w->transpose());  // [in, out]: rows of x times it
  const RowMatrixXf& right = conv ? *w : wt;
  const int blocks = int((x.rows() + kRowBlock - 1) / kRowBlock);
  parallel_for(blocks, ctx.threads, [&](int b) {  // each block of rows is the same products on any thread
    const Eigen::Index r0 = Eigen::Index(b) * kRowBlock, n = std::min<Eigen::Index>(kRowBlock, x.rows() - r0);
    matmul(x.middleRows(r0, n), right, y.middleRows(r0, n));
  });
  if (ctx.read.has(name + ".bias")) {
    Expected<RowMatrixXf> b = ctx.read(name + ".bias", {out});
    if (!b) return b.error();
    y.rowwise() += b->row(0);
  }
  return y;
}

// Each row's RMS norm over `width` columns at a time (the whole row, or each head): times w, or 1 + w (Gemma).
void rms_rows(RowMatrixXf& x, const float* w, Eigen::Index width, NormKind norm, float eps) {
  for (Eigen::Index r = 0; r < x.rows(); ++r)
    for (Eigen::Index c0 = 0; c0 < x.cols(); c0 += width) {
      float* v = x.row(r).data() + c0;
      const float ms = fixed_sum<float>(width, [v](Eigen::Index i) { return v[i] * v[i]; }) / float(width);
      const float inv = 1.0f / std::sqrt(ms + eps);
      for (Eigen::Index i = 0; i < width; ++i)
        v[i] = norm == NormKind::RmsPlusOne ? (v[i] * inv) * (1.0f + w[i]) : w[i] * (v[i] * inv);
    }
}

// Qwen3's q/k norm (each head) or OLMo 2's (all heads at once).
std::optional<Error> qk_norm(const LayerContext& ctx, const std::string& p, RowMatrixXf& q, RowMatrixXf& k) {
  const bool per_head = ctx.family.qk_norm == QkNorm::PerHead;
  for (auto [m, name] : {std::pair{&q, kQNormName}, {&k, kKNormName}}) {
    const long long width = per_head ? ctx.head_dim : m->cols();
    Expected<RowMatrixXf> w = ctx.read(p + name, {width});
    if (!w) return w.error();
    rms_rows(*m, w->data(), width, ctx.family.norm == NormKind::Layer ? NormKind::Rms : ctx.family.norm, ctx.eps);
  }
  return std::nullopt;
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
        const auto [a, b] = pair_indices(i, rope.rotary_dims, rope.pairing);
        const float x1 = x[a], x2 = x[b], c = cs[std::size_t(i)], s = sn[std::size_t(i)];
        x[a] = x1 * c - x2 * s;
        x[b] = x2 * c + x1 * s;
      }
    }
  }
}

// Per head and rotated pair, the RMS over tokens of the pair's 2-norm (Barbero et al. 2025), before the rotation.
std::vector<std::vector<double>> pair_norms(const RowMatrixXf& m, int heads, int head_dim, const RopeModel& rope) {
  const int half = rope.rotary_dims / 2;
  std::vector<std::vector<double>> out(static_cast<std::size_t>(heads),
                                       std::vector<double>(static_cast<std::size_t>(half)));
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < half; ++i) {
      const auto [da, db] = pair_indices(i, rope.rotary_dims, rope.pairing);
      const int a = h * head_dim + da, b = h * head_dim + db;
      const double sq = fixed_sum<double>(m.rows(), [&](Eigen::Index t) {
        return double(m(t, a)) * double(m(t, a)) + double(m(t, b)) * double(m(t, b));
      });
      out[std::size_t(h)][std::size_t(i)] = std::sqrt(sq / double(m.rows()));
    }
  return out;
}

struct Qkv {
  RowMatrixXf q, k, v;
};

// q [T, H hd], k and v [T, Hk hd], from the family's projections.
Expected<Qkv> project_qkv(const LayerContext& ctx, const std::string& p, const RowMatrixXf& a) {
  const ModelFamily& f = ctx.family;
  const long long d = ctx.d, hd = ctx.head_dim, qw = ctx.heads * hd, kw = ctx.kv_heads * hd;
  Qkv out;
  if (f.qkv == QkvLayout::Separate) {
    for (auto [m, name, width] : {std::tuple{&out.q, f.q, qw}, {&out.k, f.k, kw}, {&out.v, f.v, kw}}) {
      Expected<RowMatrixXf> y = linear(ctx, a, p + name, width, d);
      if (!y) return y.error();
      *m = std::move(y.value());
    }
    return out;
  }
  Expected<RowMatrixXf> fused = linear(ctx, a, p + f.q, f.qkv == QkvLayout::Phi3 ? qw + 2 * kw : 3 * qw, d);
  if (!fused) return fused.error();
  const RowMatrixXf& y = *fused;
  if (f.qkv == QkvLayout::NeoX) {  // per head: [q, k, v] of head_dim each
    out.q.resize(y.rows(), qw), out.k.resize(y.rows(), qw), out.v.resize(y.rows(), qw);
    for (int h = 0; h < ctx.heads; ++h) {
      out.q.middleCols(h * hd, hd) = y.middleCols(3 * h * hd, hd);
      out.k.middleCols(h * hd, hd) = y.middleCols(3 * h * hd + hd, hd);
      out.v.middleCols(h * hd, hd) = y.middleCols(3 * h * hd + 2 * hd, hd);
    }
    return out;
  }
  out.q = y.leftCols(qw);  // Phi-3 and GPT-2: all of q, then k, then v
  out.k = y.middleCols(qw, kw);
  out.v = y.middleCols(qw + kw, kw);
  return out;
}

// One expert's (or the dense) gated MLP: down(act(gate x) * up x).
Expected<RowMatrixXf> gated(const LayerContext& ctx, const RowMatrixXf& a, const std::string& gate,
                            const std::string& up, const std::string& down, long long inner) {
  Expected<RowMatrixXf> g = linear(ctx, a, gate, inner, ctx.d);
  if (!g) return g.error();
  Expected<RowMatrixXf> u = linear(ctx, a, up, inner, ctx.d);
  if (!u) return u.error();
  RowMatrixXf& gv = g.value();
  activate_all(gv, ctx.act);
  gv.array() *= u->array();
  return linear(ctx, gv, down, ctx.d, inner);
}

// Mixtral's sparse MoE: softmax router, the top k experts per token renormalised, added up in expert order.
Expected<RowMatrixXf> moe(const LayerContext& ctx, const std::string& p, const RowMatrixXf& a) {
  const ModelFamily& f = ctx.family;
  const long long experts = ctx.read.dim(p + "block_sparse_moe.gate.weight", 0);
  if (experts < 1) return bad_request("the checkpoint holds no tensor \"" + p + "block_sparse_moe.gate.weight\"");
  const int k = std::min<int>(ctx.experts_per_token, int(experts));
  Expected<RowMatrixXf> logits = linear(ctx, a, p + "block_sparse_moe.gate", experts, ctx.d);
  if (!logits) return logits.error();
  RowMatrixXf weight = RowMatrixXf::Zero(a.rows(), experts);  // the renormalised top-k weights, 0 elsewhere
  for (Eigen::Index t = 0; t < a.rows(); ++t) {
    const float* l = logits->row(t).data();
    const float mx = *std::max_element(l, l + experts);
    std::vector<float> p(static_cast<std::size_t>(experts));
    for (long long e = 0; e < experts; ++e) p[std::size_t(e)] = math::exp(l[e] - mx);
    const float sum = fixed_sum<float>(experts, [&p](Eigen::Index e) { return p[std::size_t(e)]; });
    std::vector<int> order(static_cast<std::size_t>(experts));
    for (int e = 0; e < int(experts); ++e) order[std::size_t(e)] = e;
    std::stable_sort(order.begin(), order.end(), [&p](int x, int y) { return p[std::size_t(x)] > p[std::size_t(y)]; });
    float top = 0;
    for (int j = 0; j < k; ++j) top += p[std::size_t(order[std::size_t(j)])] / sum;
    for (int j = 0; j < k; ++j) weight(t, order[std::size_t(j)]) = (p[std::size_t(order[std::size_t(j)])] / sum) / top;
  }
  RowMatrixXf out = RowMatrixXf::Zero(a.rows(), ctx.d);
  for (int e = 0; e < int(experts); ++e) {
    std::vector<Eigen::Index> rows;
    for (Eigen::Index t = 0; t < a.rows(); ++t)
      if (weight(t, e) != 0.0f) rows.push_back(t);
    if (rows.empty()) continue;
    RowMatrixXf x(Eigen::Index(rows.size()), ctx.d);
    for (std::size_t i = 0; i < rows.size(); ++i) x.row(Eigen::Index(i)) = a.row(rows[i]);
    const long long inner = ctx.read.dim(at_index(p + f.gate, 0, e) + ".weight", 0);
    Expected<RowMatrixXf> y =
        gated(ctx, x, at_index(p + f.gate, 0, e), at_index(p + f.up, 0, e), at_index(p + f.down, 0, e), inner);
    if (!y) return y.error();
    for (std::size_t i = 0; i < rows.size(); ++i) out.row(rows[i]) += y->row(Eigen::Index(i)) * weight(rows[i], e);
  }
  return out;
}

Expected<RowMatrixXf> mlp(const LayerContext& ctx, const std::string& p, const RowMatrixXf& a) {
  const ModelFamily& f = ctx.family;
  const std::string first = p + (f.mlp == MlpKind::Gated ? f.gate : f.up) + ".weight";
  const long long inner = f.mlp == MlpKind::Moe ? 0 : ctx.read.dim(first, f.conv1d ? 1 : 0);
  if (f.mlp != MlpKind::Moe && inner < 1)
    return bad_request("the checkpoint holds no tensor \"" + first + "\" (expected shape [intermediate_size, " +
                       std::to_string(ctx.d) + "])");
  switch (f.mlp) {
    case MlpKind::Gated:
      return gated(ctx, a, p + f.gate, p + f.up, p + f.down, inner);
    case MlpKind::Moe:
      return moe(ctx, p, a);
    case MlpKind::Phi3: {  // gate_up_proj: the gate's rows, then the up projection's
      Expected<RowMatrixXf> gu = linear(ctx, a, p + f.up, inner, ctx.d);
      if (!gu) return gu.error();
      const long long half = inner / 2;
      RowMatrixXf g = gu->leftCols(half);
      activate_all(g, ctx.act);
      g.array() *= gu->rightCols(half).array();
      return linear(ctx, g, p + f.down, ctx.d, half);
    }
    case MlpKind::Plain:
    case MlpKind::Gpt2: {
      Expected<RowMatrixXf> h = linear(ctx, a, p + f.up, inner, ctx.d);
      if (!h) return h.error();
      activate_all(h.value(), ctx.act);
      return linear(ctx, *h, p + f.down, ctx.d, inner);
    }
  }
  return bad_request("unknown MLP");
}

}  // namespace

std::string at_index(const std::string& pattern, int l, int e) {
  std::string s = at_layer(pattern.c_str(), l);  // the layouts' "{l}", then an expert's "{e}"
  const std::size_t i = s.find("{e}");
  return i == std::string::npos ? s : s.replace(i, 3, std::to_string(e));
}

Expected<RowMatrixXf> TensorReader::operator()(const std::string& name, const std::vector<long long>& shape) const {
  const TensorInfo* t = c.find(name);
  if (!t)
    return bad_request("the checkpoint holds no tensor \"" + name + "\" (expected shape " + shape_text(shape) + ")");
  if (t->shape != shape)
    return bad_request("tensor \"" + name + "\" has shape " + shape_text(t->shape) + ", expected " + shape_text(shape));
  // bf16, f16 and f32 widen to float exactly; read a block of rows at a time, so a 49,152-row embedding never
  // exists in float64 whole
  const long long rows = t->shape.size() < 2 ? 1 : t->shape[0], cols = rows ? t->elements() / rows : 0;
  RowMatrixXf out(rows, cols);
  for (long long r0 = 0; r0 < rows; r0 += kReadRows) {
    const long long n = std::min(kReadRows, rows - r0);
    Expected<RowMatrixXd> m = t->shape.size() < 2 ? c.read(*t) : c.read_rows(*t, r0, n);
    if (!m) return m.error();
    out.middleRows(r0, n) = m->cast<float>();
  }
  return out;
}

long long TensorReader::dim(const std::string& name, std::size_t axis) const {
  const TensorInfo* t = c.find(name);
  return t && t->shape.size() > axis ? t->shape[axis] : -1;
}

std::optional<Error> apply_norm(const TensorReader& read, const std::string& name, NormKind norm, RowMatrixXf& h,
                                float eps) {
  Expected<RowMatrixXf> w = read(name + ".weight", {h.cols()});
  if (!w) return w.error();
  if (norm != NormKind::Layer) {
    rms_rows(h, w->data(), h.cols(), norm, eps);
    return std::nullopt;
  }
  Expected<RowMatrixXf> b = read(name + ".bias", {h.cols()});
  if (!b) return b.error();
  const Eigen::Index d = h.cols();
  for (Eigen::Index r = 0; r < h.rows(); ++r) {
    float* x = h.row(r).data();
    const float mean = fixed_sum<float>(d, [x](Eigen::Index i) { return x[i]; }) / float(d);
    const float var =
        fixed_sum<float>(d, [x, mean](Eigen::Index i) { return (x[i] - mean) * (x[i] - mean); }) / float(d);
    const float rstd = 1.0f / std::sqrt(var + eps);
    for (Eigen::Index i = 0; i < d; ++i) x[i] = ((x[i] - mean) * rstd) * (*w)(0, i) + (*b)(0, i);
  }
  return std::nullopt;
}

std::optional<Error> run_layer(const LayerContext& ctx, int l, const std::optional<RopeModel>& rope, long long window,
                               RowMatrixXf& h, AttentionStats& stats) {
  const ModelFamily& f = ctx.family;
  const std::string p = at_index(f.layer, l);
  const auto norm = [&](const char* name, RowMatrixXf& x) -> std::optional<Error> {
    return *name ? apply_norm(ctx.read, p + name, f.norm, x, ctx.eps) : std::nullopt;
  };
  RowMatrixXf a = h;
  if (auto e = norm(f.attn_norm, a)) return e;
  Expected<Qkv> qkv = project_qkv(ctx, p, a);
  if (!qkv) return qkv.error();
  Qkv& m = qkv.value();
  if (f.qk_norm != QkNorm::None)
    if (auto e = qk_norm(ctx, p, m.q, m.k)) return e;
  if (rope && stats.pairs_on) {
    stats.q_pairs.push_back(pair_norms(m.q, ctx.heads, ctx.head_dim, *rope));
    stats.k_pairs.push_back(pair_norms(m.k, ctx.kv_heads, ctx.head_dim, *rope));
  }
  if (rope && !ctx.drop_rope) {
    rotate(m.q, ctx.heads, ctx.head_dim, *rope, ctx.positions);
    rotate(m.k, ctx.kv_heads, ctx.head_dim, *rope, ctx.positions);
  }
  AttendOptions how{ctx.heads, ctx.kv_heads, ctx.head_dim, ctx.scale, ctx.divide, ctx.softcap, window, ctx.threads};
  const RowMatrixXf o = attend(m.q, m.k, m.v, how, stats);
  Expected<RowMatrixXf> attn = linear(ctx, o, p + f.o, ctx.d, (long long)ctx.heads * ctx.head_dim);
  if (!attn) return attn.error();
  RowMatrixXf& att = attn.value();
  if (auto e = norm(f.post_attn_norm, att)) return e;
  if (ctx.residual == Residual::ParallelOneNorm || ctx.residual == Residual::ParallelTwoNorms) {
    RowMatrixXf b = h;  // GPT-NeoX's second norm of the same input; Phi and GPT-J feed the MLP the first
    if (ctx.residual == Residual::ParallelTwoNorms)
      if (auto e = norm(f.mlp_norm, b)) return e;
    Expected<RowMatrixXf> y = mlp(ctx, p, ctx.residual == Residual::ParallelTwoNorms ? b : a);
    if (!y) return y.error();
    h = (ctx.residual == Residual::ParallelTwoNorms ? RowMatrixXf(*y + att) : RowMatrixXf(att + *y)) + h;
    return std::nullopt;
  }
  h += att;
  a = h;
  if (auto e = norm(f.mlp_norm, a)) return e;
  Expected<RowMatrixXf> y = mlp(ctx, p, a);
  if (!y) return y.error();
  if (auto e = norm(f.post_mlp_norm, y.value())) return e;
  h += *y;
  return std::nullopt;
}

double token_nll(const Eigen::Ref<const Eigen::Matrix<float, 1, Eigen::Dynamic>>& logits, long long target) {
  const Eigen::Index V = logits.size();
  const float mx = logits.maxCoeff();
  const float sum = fixed_sum<float>(V, [&](Eigen::Index i) { return math::exp(logits[i] - mx); });
  return -double((logits[Eigen::Index(target)] - mx) - math::log(sum));
}

}  // namespace rv
