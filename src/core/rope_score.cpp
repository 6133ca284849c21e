// Attention scores under RoPE: the score-vs-offset curve by rotation recurrence, and the spread across anchors.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/rope.hpp"

namespace rv {
namespace {
constexpr int kBlock = 64;      // pairs processed together (stack arrays, no heap)
constexpr int kReanchor = 128;  // offsets between exact sin/cos re-anchors of the recurrence
}  // namespace

void rope_score_curve(const Eigen::VectorXd& q, const Eigen::VectorXd& k, const Eigen::VectorXd& inv_freq, Pairing p,
                      double anchor, long long offset_lo, long long offset_hi, std::vector<double>& out) {
  if (offset_hi < offset_lo) {
    out.clear();
    return;
  }
  const std::size_t n = static_cast<std::size_t>(offset_hi - offset_lo) + 1;
  out.assign(n, 0.0);  // no reallocation when capacity >= n
  const int d = static_cast<int>(q.size());
  const int half = d / 2;

  // Per pair: score_i(P) = A_i cos(P theta_i) + B_i sin(P theta_i), with k already rotated at the anchor
  double A[kBlock], Bc[kBlock], c[kBlock], s[kBlock], cs[kBlock], sn[kBlock];
  for (int i0 = 0; i0 < half; i0 += kBlock) {
    const int m = std::min(kBlock, half - i0);
    for (int u = 0; u < m; ++u) {
      const int i = i0 + u;
      const auto ab = pair_indices(i, d, p);
      const double qa = q[ab.first], qb = q[ab.second];
      const double ang = anchor * inv_freq[i];
      const double ca = std::cos(ang), sa = std::sin(ang);
      const double ka = k[ab.first] * ca - k[ab.second] * sa;  // RoPE(k, anchor)
      const double kb = k[ab.first] * sa + k[ab.second] * ca;
      A[u] = qa * ka + qb * kb;  // <(qa,qb) rotated by phi, (ka,kb)> = A cos(phi) + B sin(phi)
      Bc[u] = qa * kb - qb * ka;
      cs[u] = std::cos(inv_freq[i]);  // one-step rotation e^{i theta}
      sn[u] = std::sin(inv_freq[i]);
    }
    for (std::size_t j0 = 0; j0 < n; j0 += kReanchor) {
      const double pos = anchor + static_cast<double>(offset_lo + static_cast<long long>(j0));
      for (int u = 0; u < m; ++u) {
        const double ang = pos * inv_freq[i0 + u];
        c[u] = std::cos(ang);
        s[u] = std::sin(ang);
      }
      const std::size_t j1 = std::min(n, j0 + kReanchor);
      for (std::size_t j = j0; j < j1; ++j) {
        double acc = 0.0;
        for (int u = 0; u < m; ++u) {
          acc += A[u] * c[u] + Bc[u] * s[u];
          const double cn = c[u] * cs[u] - s[u] * sn[u];  // e^{i(P+1)theta} = e^{iP theta} e^{i theta}
          s[u] = s[u] * cs[u] + c[u] * sn[u];
          c[u] = cn;
        }
        out[j] += acc;
      }
    }
  }
}

double rope_relative_spread(const Eigen::VectorXd& q, const Eigen::VectorXd& k, const Eigen::VectorXd& inv_freq,
                            Pairing p, const std::vector<double>& anchors, long long offset_lo, long long offset_hi) {
  if (anchors.empty() || offset_hi < offset_lo) return 0.0;
  const std::size_t n = static_cast<std::size_t>(offset_hi - offset_lo) + 1;
  std::vector<double> lo(n, std::numeric_limits<double>::infinity());
  std::vector<double> hi(n, -std::numeric_limits<double>::infinity());
  std::vector<double> curve;
  curve.reserve(n);
  for (double a : anchors) {
    rope_score_curve(q, k, inv_freq, p, a, offset_lo, offset_hi, curve);
    for (std::size_t j = 0; j < n; ++j) {
      lo[j] = std::min(lo[j], curve[j]);
      hi[j] = std::max(hi[j], curve[j]);
    }
  }
  double spread = 0.0;
  for (std::size_t j = 0; j < n; ++j) spread = std::max(spread, hi[j] - lo[j]);
  return spread;
}

}  // namespace rv
