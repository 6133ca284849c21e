// Critical dimension (Liu et al. 2023) and first negative cosine sum (Men et al. 2024) of RoPE frequencies.
#include "core/rope/rope_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/rope/rope.hpp"

namespace rv {

int rope_critical_dim(int d_head, double base, double context) {
  const double x = (d_head / 2) * std::log(context / (2.0 * 3.14159265358979323846)) / std::log(base);
  const double dims = 2.0 * std::ceil(x);
  return static_cast<int>(std::min(static_cast<double>(d_head), std::max(0.0, dims)));
}

std::optional<long long> rope_first_negative_m(int d_head, double base, long long limit) {
  const Eigen::VectorXd theta = rope_inv_freq(d_head, base);
  const int half = d_head / 2;
  const auto exact = [&](long long m) {
    double s = 0.0;
    for (int i = 0; i < half; ++i) s += std::cos(static_cast<double>(m) * theta[i]);
    return s;
  };
  std::vector<double> c(half), s(half), cs(half), sn(half);
  for (int i = 0; i < half; ++i) {
    cs[i] = std::cos(theta[i]);
    sn[i] = std::sin(theta[i]);
  }
  constexpr long long kBlock = 256;           // recurrence steps between exact resynchronisations
  const double margin = 1e-9 * half + 1e-12;  // far above the recurrence's drift over one block
  for (long long m0 = 1; m0 <= limit; m0 += kBlock) {
    for (int i = 0; i < half; ++i) {
      c[i] = std::cos(static_cast<double>(m0) * theta[i]);
      s[i] = std::sin(static_cast<double>(m0) * theta[i]);
    }
    const long long end = std::min(limit, m0 + kBlock - 1);
    for (long long m = m0;; ++m) {
      double sum = 0.0;
      for (int i = 0; i < half; ++i) sum += c[i];
      if (sum < margin && exact(m) < 0.0) return m;
      if (m == end) break;
      for (int i = 0; i < half; ++i) {  // e^{i(m+1)theta_i} = e^{i m theta_i} e^{i theta_i}
        const RotatedPair<double> next = rotate_pair(c[i], s[i], cs[i], sn[i]);
        c[i] = next.a;
        s[i] = next.b;
      }
    }
  }
  return std::nullopt;
}

}  // namespace rv
