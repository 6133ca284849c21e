// RoPE on single vectors: theta_i = base^(-2i/d), angle = m*theta_i, pair rotation, permutation, norms, decay bound.
#include "core/rope/rope.hpp"
#include "core/base/format.hpp"
#include "core/base/names.hpp"

#include <cmath>
#include <complex>
#include <string>

namespace rv {

namespace {
// The canonical names first; Llama/GPT-J and GPT-NeoX's names for the same layouts read too.
constexpr Named<Pairing> kPairingNames[] = {
    {Pairing::Interleaved, "interleaved"}, {Pairing::HalfSplit, "half_split"}, {Pairing::Interleaved, "llama"},
    {Pairing::Interleaved, "gptj"},        {Pairing::HalfSplit, "half-split"}, {Pairing::HalfSplit, "neox"},
    {Pairing::HalfSplit, "rotate_half"}};
}  // namespace

const char* pairing_name(Pairing p) {
  return name_of(kPairingNames, p);
}

std::optional<Pairing> parse_pairing(std::string_view name) {
  return parse_name(kPairingNames, name);
}

std::optional<Error> check_rope_dims(int d_head, double base) {
  if (d_head <= 0) return bad_request("d_head must be a positive even integer, got " + std::to_string(d_head));
  if (d_head % 2 != 0)
    return bad_request("d_head must be even (RoPE rotates pairs of coordinates), got " + std::to_string(d_head));
  if (d_head > 65536) return bad_request("d_head must be at most 65536, got " + std::to_string(d_head));
  if (!std::isfinite(base) || !(base > 1.0))
    return bad_request("base must be a finite number greater than 1, got " + format_number(base));
  return std::nullopt;
}

Eigen::VectorXd rope_inv_freq(int d_head, double base) {
  const int half = d_head / 2;
  Eigen::VectorXd inv_freq(half);
  // 1 / base^(2i/d): the same operation order as torch's 1.0 / (base ** (arange(0, d, 2) / d)), in float64
  for (int i = 0; i < half; ++i) inv_freq[i] = 1.0 / std::pow(base, static_cast<double>(2 * i) / d_head);
  return inv_freq;
}

Eigen::VectorXd rope_angles(double position, const Eigen::VectorXd& inv_freq) {
  return position * inv_freq;  // [d_head/2], one rounding per entry
}

Eigen::MatrixXd rope_angle_table(const Eigen::VectorXd& positions, const Eigen::VectorXd& inv_freq) {
  return positions * inv_freq.transpose();  // torch.outer(t, freqs)  # [T, d_head/2]
}

Eigen::Vector2d rope_pair(const Eigen::VectorXd& v, int i, Pairing p) {
  const auto ab = pair_indices(i, static_cast<int>(v.size()), p);
  return {v[ab.first], v[ab.second]};
}

Eigen::VectorXd apply_rope(const Eigen::VectorXd& x, double position, const Eigen::VectorXd& inv_freq, Pairing p) {
  const int d = static_cast<int>(x.size());
  Eigen::VectorXd out(d);
  for (int i = 0; i < d / 2; ++i) {
    const double angle = position * inv_freq[i];
    const double c = std::cos(angle), s = std::sin(angle);
    const auto ab = pair_indices(i, d, p);
    const RotatedPair<double> r = rotate_pair(x[ab.first], x[ab.second], c, s);
    out[ab.first] = r.a;
    out[ab.second] = r.b;
  }
  return out;
}

Eigen::MatrixXd apply_rope_rows(const Eigen::MatrixXd& X, const Eigen::VectorXd& positions,
                                const Eigen::VectorXd& inv_freq, Pairing p) {
  Eigen::MatrixXd out(X.rows(), X.cols());
  for (Eigen::Index t = 0; t < X.rows(); ++t)
    out.row(t) = apply_rope(X.row(t).transpose(), positions[t], inv_freq, p).transpose();
  return out;
}

std::vector<int> half_split_from_interleaved_perm(int d_head) {
  const int half = d_head / 2;
  std::vector<int> perm(static_cast<std::size_t>(d_head));
  for (int i = 0; i < half; ++i) {
    perm[static_cast<std::size_t>(i)] = 2 * i;             // half-split a_i <- interleaved x[2i]
    perm[static_cast<std::size_t>(i + half)] = 2 * i + 1;  // half-split b_i <- interleaved x[2i+1]
  }
  return perm;
}

Eigen::VectorXd permute_pairing(const Eigen::VectorXd& x, Pairing from, Pairing to) {
  if (from == to) return x;
  const int d = static_cast<int>(x.size());
  const std::vector<int> perm = half_split_from_interleaved_perm(d);
  Eigen::VectorXd out(d);
  for (int j = 0; j < d; ++j) {
    const int src = perm[static_cast<std::size_t>(j)];
    if (from == Pairing::Interleaved)
      out[j] = x[src];  // half[j] = inter[perm[j]]
    else
      out[src] = x[j];  // inter[perm[j]] = half[j]
  }
  return out;
}

double rope_score(const Eigen::VectorXd& q, const Eigen::VectorXd& k, double m, double n,
                  const Eigen::VectorXd& inv_freq, Pairing p) {
  return apply_rope(q, m, inv_freq, p).dot(apply_rope(k, n, inv_freq, p));
}

double rope_norm_max_diff(const Eigen::MatrixXd& X, const Eigen::VectorXd& positions, const Eigen::VectorXd& inv_freq,
                          Pairing p) {
  double worst = 0.0;
  for (Eigen::Index t = 0; t < X.rows(); ++t) {
    const Eigen::VectorXd x = X.row(t).transpose();
    const double diff = std::abs(apply_rope(x, positions[t], inv_freq, p).norm() - x.norm());
    if (diff > worst) worst = diff;
  }
  return worst;
}

double rope_norm_max_diff(const Eigen::MatrixXd& X, double position, const Eigen::VectorXd& inv_freq, Pairing p) {
  return rope_norm_max_diff(X, Eigen::VectorXd::Constant(X.rows(), position), inv_freq, p);
}

double rope_decay_bound(const Eigen::VectorXd& inv_freq, double distance) {
  // S_j = sum_{k<j} e^{i r theta_k}; bound = mean_j |S_j|
  std::complex<double> S(0.0, 0.0);
  double total = 0.0;
  const Eigen::Index half = inv_freq.size();
  for (Eigen::Index k = 0; k < half; ++k) {
    const double angle = distance * inv_freq[k];
    S += std::complex<double>(std::cos(angle), std::sin(angle));
    total += std::abs(S);
  }
  return half > 0 ? total / static_cast<double>(half) : 0.0;
}

std::vector<double> rope_decay_bound(int d, double base, const std::vector<double>& distances) {
  const Eigen::VectorXd inv_freq = rope_inv_freq(d, base);
  std::vector<double> out;
  out.reserve(distances.size());
  for (double r : distances) out.push_back(rope_decay_bound(inv_freq, r));
  return out;
}

}  // namespace rv
