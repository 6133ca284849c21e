// Attention scores under RoPE: the score-vs-offset curve by rotation recurrence, the spread across anchors, and
// true bounds on |score(r)| for given q, k (Abel summation, and RoFormer's looser form).
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "core/rope/rope.hpp"

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
      const RotatedPair<double> kr = rotate_pair(k[ab.first], k[ab.second], std::cos(ang), std::sin(ang));
      const double ka = kr.a, kb = kr.b;  // RoPE(k, anchor)
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
          // e^{i(P+1)theta} = e^{iP theta} e^{i theta}: (cos, sin) turned by theta
          const RotatedPair<double> next = rotate_pair(c[u], s[u], cs[u], sn[u]);
          c[u] = next.a;
          s[u] = next.b;
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

Eigen::VectorXcd rope_pair_products(const Eigen::VectorXd& q, const Eigen::VectorXd& k, Pairing p) {
  const int d = static_cast<int>(q.size());
  Eigen::VectorXcd h(d / 2);
  for (int i = 0; i < d / 2; ++i) {
    const auto ab = pair_indices(i, d, p);
    // RoPE multiplies pair (a, b) as a + ib by e^{i pos theta}; <u, v> = Re(u conj(v)) for pairs.
    h[i] = std::complex<double>(q[ab.first], q[ab.second]) * std::conj(std::complex<double>(k[ab.first], k[ab.second]));
  }
  return h;
}

namespace {
// w_i = |h_i - h_{i+1}| with h_{d/2} = 0, and their max.
double abel_weights(const Eigen::VectorXcd& h, std::vector<double>& w) {
  const Eigen::Index half = h.size();
  w.resize(static_cast<std::size_t>(half));
  double wmax = 0.0;
  for (Eigen::Index i = 0; i < half; ++i) {
    w[static_cast<std::size_t>(i)] = std::abs(h[i] - (i + 1 < half ? h[i + 1] : std::complex<double>()));
    wmax = std::max(wmax, w[static_cast<std::size_t>(i)]);
  }
  return wmax;
}
}  // namespace

ScoreBound rope_score_bound(const Eigen::VectorXcd& h, const Eigen::VectorXd& inv_freq, double r) {
  std::vector<double> w;
  const double wmax = abel_weights(h, w);
  std::complex<double> S(0.0, 0.0);
  ScoreBound b;
  double sum_s = 0.0;
  for (Eigen::Index i = 0; i < h.size(); ++i) {
    S += std::polar(1.0, r * inv_freq[i]);  // S_{i+1}
    b.abel += w[static_cast<std::size_t>(i)] * std::abs(S);
    sum_s += std::abs(S);
  }
  b.roformer = wmax * sum_s;
  return b;
}

namespace {
// Both bounds for r in [r0, r1] into abel[r - r0], roformer[r - r0]: e^{i r theta_i} as (c, s) advanced by
// e^{i theta_i}, re-anchored every kReanchor offsets; plain arithmetic (no hypot, no __muldc3).
void bound_run(const std::vector<double>& w, double wmax, const Eigen::VectorXd& inv_freq, long long r0, long long r1,
               double* abel, double* roformer) {
  const std::size_t half = w.size();
  std::vector<double> c(half), s(half), cs(half), sn(half);
  for (std::size_t i = 0; i < half; ++i) {
    cs[i] = std::cos(inv_freq[static_cast<Eigen::Index>(i)]);
    sn[i] = std::sin(inv_freq[static_cast<Eigen::Index>(i)]);
  }
  for (long long r = r0; r <= r1; ++r) {
    if ((r - r0) % kReanchor == 0)
      for (std::size_t i = 0; i < half; ++i) {
        c[i] = std::cos(static_cast<double>(r) * inv_freq[static_cast<Eigen::Index>(i)]);
        s[i] = std::sin(static_cast<double>(r) * inv_freq[static_cast<Eigen::Index>(i)]);
      }
    double re = 0.0, im = 0.0, a = 0.0, sum_s = 0.0;
    for (std::size_t i = 0; i < half; ++i) {
      re += c[i];  // S_{i+1}
      im += s[i];
      const double mag = std::sqrt(re * re + im * im);
      a += w[i] * mag;
      sum_s += mag;
      const RotatedPair<double> next = rotate_pair(c[i], s[i], cs[i], sn[i]);  // e^{i(r+1)theta_i}
      c[i] = next.a;
      s[i] = next.b;
    }
    abel[r - r0] = a;
    roformer[r - r0] = wmax * sum_s;
  }
}
}  // namespace

void rope_score_bound_curve(const Eigen::VectorXd& q, const Eigen::VectorXd& k, const Eigen::VectorXd& inv_freq,
                            Pairing p, long long offset_lo, long long offset_hi, std::vector<double>& abel,
                            std::vector<double>& roformer) {
  const long long lo = offset_lo, hi = offset_hi;
  abel.assign(hi < lo ? 0 : static_cast<std::size_t>(hi - lo) + 1, 0.0);
  roformer.assign(abel.size(), 0.0);
  if (hi < lo) return;
  std::vector<double> w;
  const double wmax = abel_weights(rope_pair_products(q, k, p), w);
  // Both bounds depend on |r| only: compute r >= 0 (and negatives with no mirror in range), copy the rest.
  const long long pos = std::max(lo, 0LL), neg_end = std::min(hi, -hi - 1);
  if (pos <= hi) bound_run(w, wmax, inv_freq, pos, hi, &abel[std::size_t(pos - lo)], &roformer[std::size_t(pos - lo)]);
  if (lo <= neg_end) bound_run(w, wmax, inv_freq, lo, neg_end, &abel[0], &roformer[0]);
  for (long long r = std::max(lo, -hi); r < 0; ++r) {
    abel[std::size_t(r - lo)] = abel[std::size_t(-r - lo)];
    roformer[std::size_t(r - lo)] = roformer[std::size_t(-r - lo)];
  }
}

}  // namespace rv
