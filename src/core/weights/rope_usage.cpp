// rope_usage: per layer, head and pair, the weight-only strength of the query/key projections
// (core/weights/rope_usage.hpp).
#include "core/weights/rope_usage.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/base/constants.hpp"

namespace rv {
namespace {

enum class Fused { None, Phi3, NeoX };

// Where a model type keeps layer l's attention weights.
struct Layout {
  const char* type;
  const char* q;       // "{l}" is the layer
  const char* k;       // empty when fused with q
  const char* norm;
  const char* q_norm;  // per-head-dim norms, or empty
  const char* k_norm;
  Fused fused = Fused::None;
  bool gemma = false;  // gamma = 1 + weight
};

const Layout kLayouts[] = {
    {"llama", "model.layers.{l}.self_attn.q_proj.weight", "model.layers.{l}.self_attn.k_proj.weight",
     "model.layers.{l}.input_layernorm.weight", "", ""},
    {"mistral", "model.layers.{l}.self_attn.q_proj.weight", "model.layers.{l}.self_attn.k_proj.weight",
     "model.layers.{l}.input_layernorm.weight", "", ""},
    {"mixtral", "model.layers.{l}.self_attn.q_proj.weight", "model.layers.{l}.self_attn.k_proj.weight",
     "model.layers.{l}.input_layernorm.weight", "", ""},
    {"qwen2", "model.layers.{l}.self_attn.q_proj.weight", "model.layers.{l}.self_attn.k_proj.weight",
     "model.layers.{l}.input_layernorm.weight", "", ""},
    {"qwen3", "model.layers.{l}.self_attn.q_proj.weight", "model.layers.{l}.self_attn.k_proj.weight",
     "model.layers.{l}.input_layernorm.weight", "model.layers.{l}.self_attn.q_norm.weight",
     "model.layers.{l}.self_attn.k_norm.weight"},
    {"gemma", "model.layers.{l}.self_attn.q_proj.weight", "model.layers.{l}.self_attn.k_proj.weight",
     "model.layers.{l}.input_layernorm.weight", "", "", Fused::None, true},
    {"gemma2", "model.layers.{l}.self_attn.q_proj.weight", "model.layers.{l}.self_attn.k_proj.weight",
     "model.layers.{l}.input_layernorm.weight", "", "", Fused::None, true},
    {"gemma3", "model.layers.{l}.self_attn.q_proj.weight", "model.layers.{l}.self_attn.k_proj.weight",
     "model.layers.{l}.input_layernorm.weight", "model.layers.{l}.self_attn.q_norm.weight",
     "model.layers.{l}.self_attn.k_norm.weight", Fused::None, true},
    {"phi", "model.layers.{l}.self_attn.q_proj.weight", "model.layers.{l}.self_attn.k_proj.weight",
     "model.layers.{l}.input_layernorm.weight", "", ""},
    {"stablelm", "model.layers.{l}.self_attn.q_proj.weight", "model.layers.{l}.self_attn.k_proj.weight",
     "model.layers.{l}.input_layernorm.weight", "", ""},
    {"phi3", "model.layers.{l}.self_attn.qkv_proj.weight", "", "model.layers.{l}.input_layernorm.weight", "", "",
     Fused::Phi3},
    {"gpt_neox", "gpt_neox.layers.{l}.attention.query_key_value.weight", "",
     "gpt_neox.layers.{l}.input_layernorm.weight", "", "", Fused::NeoX},
    {"gptj", "transformer.h.{l}.attn.q_proj.weight", "transformer.h.{l}.attn.k_proj.weight",
     "transformer.h.{l}.ln_1.weight", "", ""},
};

std::string at_layer(const char* pattern, int l) {
  std::string s(pattern);
  const std::size_t at = s.find("{l}");
  return at == std::string::npos ? s : s.replace(at, 3, std::to_string(l));
}

Expected<RowMatrixXd> read_named(Checkpoint& c, const std::string& name) {
  const TensorInfo* t = c.find(name);
  if (!t) return bad_request("the checkpoint holds no tensor \"" + name + "\"");
  return c.read(*t);
}

// A 1-D weight of `size` entries (a norm), or a BadRequest naming it.
Expected<Eigen::VectorXd> read_vector(Checkpoint& c, const std::string& name, Eigen::Index size, bool plus_one) {
  Expected<RowMatrixXd> m = read_named(c, name);
  if (!m) return m.error();
  if (m->size() != size)
    return bad_request("tensor \"" + name + "\" has " + std::to_string(m->size()) + " entries, expected " +
                       std::to_string(size));
  Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(m->data(), size);
  if (plus_one) v.array() += 1.0;
  return v;
}

}  // namespace

std::vector<std::string> rope_usage_model_types() {
  std::vector<std::string> out;
  for (const Layout& l : kLayouts) out.push_back(l.type);
  return out;
}

Expected<RopeUsage> rope_usage(Checkpoint& c, const HfConfig& config, const std::vector<int>& layers) {
  const std::string type = config.model_type.value_or("");
  const Layout* layout = nullptr;
  for (const Layout& l : kLayouts)
    if (type == l.type) layout = &l;
  if (!layout) {
    std::string known;
    for (const Layout& l : kLayouts) known += std::string(known.empty() ? "" : ", ") + l.type;
    return bad_request("rope_usage does not know model_type \"" + type + "\" (it knows " + known + ")");
  }
  Expected<ModelInfo> info = derive_model(config);
  if (!info) return bad_request("config: " + info.error().message);
  if (!info->rope) return bad_request("config: model_type \"" + type + "\" has no RoPE");
  if (!config.num_attention_heads) return bad_request("config: missing num_attention_heads");
  const RopeModel& rope = *info->rope;
  RopeUsage u;
  u.model_type = type;
  u.heads = int(*config.num_attention_heads);
  u.head_dim = rope.head_dim;
  u.rotary_dims = rope.rotary_dims;
  u.pairing = rope.pairing;
  u.wavelength = (kTwoPi / rope.inv_freq.array()).matrix();
  const int half = u.rotary_dims / 2, hd = u.head_dim, H = u.heads;
  if (layers.empty()) {
    for (int l = 0; c.find(at_layer(layout->q, l)); ++l) u.layers.push_back(l);
    if (u.layers.empty()) return bad_request("the checkpoint holds no \"" + at_layer(layout->q, 0) + "\"");
  } else {
    u.layers = layers;
  }
  // The row of dim j (within a head) for pair i: half_split i and i + r/2; interleaved 2i and 2i + 1.
  const auto pair_dims = [&](int i) {
    return u.pairing == Pairing::HalfSplit ? std::pair<int, int>{i, i + half} : std::pair<int, int>{2 * i, 2 * i + 1};
  };
  double layers_seen = 0;
  u.q_mean = Eigen::VectorXd::Zero(half);
  u.k_mean = Eigen::VectorXd::Zero(half);
  for (int l : u.layers) {
    Expected<RowMatrixXd> wq = read_named(c, at_layer(layout->q, l));
    if (!wq) return wq.error();
    const Eigen::Index in = wq->cols();
    Expected<Eigen::VectorXd> gamma = read_vector(c, at_layer(layout->norm, l), in, layout->gemma);
    if (!gamma) return gamma.error();
    // Squared norms of each row of W diag(gamma).
    const auto row_energy = [&](const RowMatrixXd& w) -> Eigen::VectorXd {
      return (w.array().rowwise() * gamma->transpose().array()).square().rowwise().sum();
    };
    Eigen::VectorXd eq = row_energy(*wq), ek;
    int q_base_rows = 0, kv = 0;
    std::function<long long(int, int)> q_row, k_row;
    if (layout->fused == Fused::None) {
      Expected<RowMatrixXd> wk = read_named(c, at_layer(layout->k, l));
      if (!wk) return wk.error();
      if (wk->cols() != in) return bad_request("\"" + at_layer(layout->k, l) + "\" and the query projection differ in width");
      ek = row_energy(*wk);
      kv = int(wk->rows() / hd);
      if (eq.size() != (long long)H * hd || ek.size() != (long long)kv * hd || kv < 1 || H % kv != 0)
        return bad_request("\"" + at_layer(layout->q, l) + "\" has " + std::to_string(eq.size()) + " rows and the key " +
                           std::to_string(ek.size()) + ": not " + std::to_string(H) + " query heads and a divisor of "
                           "them of key heads, each " + std::to_string(hd) + " wide");
      q_row = [hd](int h, int j) { return (long long)h * hd + j; };
      k_row = q_row;
    } else if (layout->fused == Fused::Phi3) {
      const long long rows = eq.size();
      kv = int((rows / hd - H) / 2);
      if (rows % hd || kv < 1 || (long long)(H + 2 * kv) * hd != rows || H % kv)
        return bad_request("\"" + at_layer(layout->q, l) + "\" has " + std::to_string(rows) + " rows: not (" +
                           std::to_string(H) + " + 2 kv) heads of " + std::to_string(hd));
      ek = eq;
      q_base_rows = H * hd;
      q_row = [hd](int h, int j) { return (long long)h * hd + j; };
      k_row = [hd, q_base_rows](int h, int j) { return q_base_rows + (long long)h * hd + j; };
    } else {
      kv = H;
      if (eq.size() != 3LL * H * hd)
        return bad_request("\"" + at_layer(layout->q, l) + "\" has " + std::to_string(eq.size()) + " rows, not 3 x " +
                           std::to_string(H) + " heads x " + std::to_string(hd));
      ek = eq;
      q_row = [hd](int h, int j) { return (long long)h * 3 * hd + j; };
      k_row = [hd](int h, int j) { return (long long)h * 3 * hd + hd + j; };
    }
    if (config.num_key_value_heads && *config.num_key_value_heads != kv)
      return bad_request("config: num_key_value_heads " + std::to_string(*config.num_key_value_heads) +
                         ", but the weights of layer " + std::to_string(l) + " have " + std::to_string(kv));
    Eigen::VectorXd nq = Eigen::VectorXd::Ones(hd), nk = Eigen::VectorXd::Ones(hd);
    if (*layout->q_norm) {
      Expected<Eigen::VectorXd> a = read_vector(c, at_layer(layout->q_norm, l), hd, false);
      Expected<Eigen::VectorXd> b = read_vector(c, at_layer(layout->k_norm, l), hd, false);
      if (!a) return a.error();
      if (!b) return b.error();
      nq = *a, nk = *b;
    }
    const auto strengths = [&](const Eigen::VectorXd& e, const Eigen::VectorXd& n, int count,
                               const std::function<long long(int, int)>& row) {
      std::vector<Eigen::VectorXd> out;
      for (int h = 0; h < count; ++h) {
        Eigen::VectorXd g(half);
        for (int i = 0; i < half; ++i) {
          const auto [a, b] = pair_dims(i);
          g[i] = std::sqrt(n[a] * n[a] * e[row(h, a)] + n[b] * n[b] * e[row(h, b)]);
        }
        out.push_back(g);
      }
      return out;
    };
    u.kv_heads = kv;
    u.q.push_back(strengths(eq, nq, H, q_row));
    u.k.push_back(strengths(ek, nk, kv, k_row));
    for (const Eigen::VectorXd& g : u.q.back()) u.q_mean += g / double(H);
    for (const Eigen::VectorXd& g : u.k.back()) u.k_mean += g / double(kv);
    layers_seen += 1;
  }
  u.q_mean /= layers_seen;
  u.k_mean /= layers_seen;
  return u;
}

}  // namespace rv
