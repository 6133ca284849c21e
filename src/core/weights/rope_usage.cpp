// rope_usage: per layer, head and pair, the weight-only strength of the query/key projections
// (core/weights/rope_usage.hpp).
#include "core/weights/rope_usage.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/base/constants.hpp"
#include "core/weights/attention_layout.hpp"

namespace rv {
namespace {

constexpr long long kRowsPerBlock = 64;  // rows decoded to float64 at a time (a 4096-wide block is 2 MB)

// A tensor's columns as decode_tensor reads it: a 1-D tensor is one row.
Eigen::Index width(const TensorInfo& t) {
  const long long n = t.elements();
  const long long rows = t.shape.size() < 2 ? 1 : t.shape[0];
  return Eigen::Index(rows ? n / rows : 0);
}

// Each row's sum of (w * gamma)^2 in four lanes (lane = column mod 4, then (0 + 1) + (2 + 3)), decoded in the loop
// that sums them: the same order on every build.
template <float (*At)(const std::uint8_t*), std::size_t Size>
void sum_rows(const std::uint8_t* bytes, std::size_t row_bytes, long long rows, long long cols, const double* g,
              double* out) {
  for (long long r = 0; r < rows; ++r) {
    const std::uint8_t* p = bytes + std::size_t(r) * row_bytes;
    double a[4] = {0, 0, 0, 0};
    long long col = 0;
    for (; col + 4 <= cols; col += 4) {
      const std::uint8_t* q = p + Size * std::size_t(col);
      const double x0 = double(At(q)) * g[col], x1 = double(At(q + Size)) * g[col + 1];
      const double x2 = double(At(q + 2 * Size)) * g[col + 2], x3 = double(At(q + 3 * Size)) * g[col + 3];
      a[0] += x0 * x0;
      a[1] += x1 * x1;
      a[2] += x2 * x2;
      a[3] += x3 * x3;
    }
    for (; col < cols; ++col) {
      const double x = double(At(p + Size * std::size_t(col))) * g[col];
      a[col & 3] += x * x;
    }
    out[r] = (a[0] + a[1]) + (a[2] + a[3]);
  }
}

// Squared norms of each row of W diag(gamma), summed where the source holds W's bytes (the page's supplied ranges,
// no copy) or in scratch (a file): a 4096 x 4096 projection never becomes a 128 MB float64 matrix.
Expected<Eigen::VectorXd> row_energy(Checkpoint& c, const TensorInfo& t, const Eigen::VectorXd& gamma,
                                     std::vector<std::uint8_t>& scratch) {
  Expected<const std::uint8_t*> view = c.view_bytes(t, scratch);
  if (!view) return view.error();
  const std::uint8_t* bytes = *view;
  const std::size_t size = std::size_t(t.end - t.begin);
  const long long cols = width(t), rows = cols ? t.elements() / cols : 0;
  if (cols != gamma.size())
    return bad_request("tensor \"" + t.name + "\" is " + std::to_string(cols) + " wide, its norm " +
                       std::to_string(gamma.size()));
  const std::size_t row_bytes = rows ? size / std::size_t(rows) : 0;
  Eigen::VectorXd out(rows);
  // The two dtypes checkpoints ship in, summed straight from their bytes.
  if (t.dtype == "BF16" && row_bytes == std::size_t(cols) * 2) {
    sum_rows<bf16_at, 2>(bytes, row_bytes, rows, cols, gamma.data(), out.data());
    return out;
  }
  if (t.dtype == "F32" && row_bytes == std::size_t(cols) * 4) {
    sum_rows<f32_at, 4>(bytes, row_bytes, rows, cols, gamma.data(), out.data());
    return out;
  }
  TensorInfo block = t;
  for (long long r0 = 0; r0 < rows; r0 += kRowsPerBlock) {
    const long long n = std::min(kRowsPerBlock, rows - r0);
    block.shape = {n, cols};
    Expected<RowMatrixXd> w = decode_tensor(block, bytes + std::size_t(r0) * row_bytes, std::size_t(n) * row_bytes);
    if (!w) return w.error();
    out.segment(r0, n) = (w->array().rowwise() * gamma.transpose().array()).square().rowwise().sum();
  }
  return out;
}

}  // namespace

Expected<RopeUsage> rope_usage(Checkpoint& c, const HfConfig& config, const std::vector<int>& layers) {
  Expected<AttentionModel> model = attention_model(config, "rope_usage");
  if (!model) return model.error();
  const AttentionLayout& layout = model->layout;
  const RopeModel& rope = model->rope;
  const std::string& type = model->type;
  RopeUsage u;
  u.model_type = type;
  u.heads = model->heads;
  u.head_dim = rope.head_dim;
  u.rotary_dims = rope.rotary_dims;
  u.pairing = rope.pairing;
  u.wavelength = (kTwoPi / rope.inv_freq.array()).matrix();
  u.base = rope.base;
  if (model->rope_local) {
    u.wavelength_local = (kTwoPi / model->rope_local->inv_freq.array()).matrix();
    u.base_local = model->rope_local->base;
  }
  const int half = u.rotary_dims / 2, hd = u.head_dim, H = u.heads;
  if (layers.empty()) {
    for (int l = 0; c.find(at_layer(layout.q, l)); ++l) u.layers.push_back(l);
    if (u.layers.empty()) return bad_request("the checkpoint holds no \"" + at_layer(layout.q, 0) + "\"");
  } else {
    u.layers = layers;
  }
  // The row of dim j (within a head) for pair i: half_split i and i + r/2; interleaved 2i and 2i + 1.
  const auto pair_dims = [&](int i) {
    return u.pairing == Pairing::HalfSplit ? std::pair<int, int>{i, i + half} : std::pair<int, int>{2 * i, 2 * i + 1};
  };
  double layers_seen = 0;
  std::vector<std::uint8_t> scratch;  // a file's projection, one at a time
  u.q_mean = Eigen::VectorXd::Zero(half);
  u.k_mean = Eigen::VectorXd::Zero(half);
  for (int l : u.layers) {
    const TensorInfo* tq = c.find(at_layer(layout.q, l));
    if (!tq) return bad_request("the checkpoint holds no tensor \"" + at_layer(layout.q, l) + "\"");
    const Eigen::Index in = width(*tq);
    Expected<Eigen::VectorXd> gamma = read_vector(c, at_layer(layout.norm, l), in, layout.gemma);
    if (!gamma) return gamma.error();
    Expected<Eigen::VectorXd> eq_read = row_energy(c, *tq, *gamma, scratch);
    if (!eq_read) return eq_read.error();
    Eigen::VectorXd eq = std::move(eq_read.value()), ek;
    int q_base_rows = 0, kv = 0;
    std::function<long long(int, int)> q_row, k_row;
    if (layout.fused == QkvLayout::Separate) {
      const TensorInfo* tk = c.find(at_layer(layout.k, l));
      if (!tk) return bad_request("the checkpoint holds no tensor \"" + at_layer(layout.k, l) + "\"");
      if (width(*tk) != in)
        return bad_request("\"" + at_layer(layout.k, l) + "\" and the query projection differ in width");
      Expected<Eigen::VectorXd> ek_read = row_energy(c, *tk, *gamma, scratch);
      if (!ek_read) return ek_read.error();
      ek = std::move(ek_read.value());
      kv = int(ek.size() / hd);
      if (eq.size() != (long long)H * hd || ek.size() != (long long)kv * hd || kv < 1 || H % kv != 0)
        return bad_request("\"" + at_layer(layout.q, l) + "\" has " + std::to_string(eq.size()) +
                           " rows and the key " + std::to_string(ek.size()) + ": not " + std::to_string(H) +
                           " query heads and a divisor of "
                           "them of key heads, each " +
                           std::to_string(hd) + " wide");
      q_row = [hd](int h, int j) { return (long long)h * hd + j; };
      k_row = q_row;
    } else if (layout.fused == QkvLayout::Phi3) {
      const long long rows = eq.size();
      kv = int((rows / hd - H) / 2);
      if (rows % hd || kv < 1 || (long long)(H + 2 * kv) * hd != rows || H % kv)
        return bad_request("\"" + at_layer(layout.q, l) + "\" has " + std::to_string(rows) + " rows: not (" +
                           std::to_string(H) + " + 2 kv) heads of " + std::to_string(hd));
      ek = eq;
      q_base_rows = H * hd;
      q_row = [hd](int h, int j) { return (long long)h * hd + j; };
      k_row = [hd, q_base_rows](int h, int j) { return q_base_rows + (long long)h * hd + j; };
    } else {
      kv = H;
      if (eq.size() != 3LL * H * hd)
        return bad_request("\"" + at_layer(layout.q, l) + "\" has " + std::to_string(eq.size()) + " rows, not 3 x " +
                           std::to_string(H) + " heads x " + std::to_string(hd));
      ek = eq;
      q_row = [hd](int h, int j) { return (long long)h * 3 * hd + j; };
      k_row = [hd](int h, int j) { return (long long)h * 3 * hd + hd + j; };
    }
    if (config.num_key_value_heads && *config.num_key_value_heads != kv)
      return bad_request("config: num_key_value_heads " + std::to_string(*config.num_key_value_heads) +
                         ", but the weights of layer " + std::to_string(l) + " have " + std::to_string(kv));
    Eigen::VectorXd nq = Eigen::VectorXd::Ones(hd), nk = Eigen::VectorXd::Ones(hd);
    if (!layout.q_norm.empty()) {
      Expected<Eigen::VectorXd> a = read_vector(c, at_layer(layout.q_norm, l), hd, layout.gemma);  // gemma3: 1 + w
      Expected<Eigen::VectorXd> b = read_vector(c, at_layer(layout.k_norm, l), hd, layout.gemma);
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
    u.local.push_back(is_local_layer(config, l));
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
