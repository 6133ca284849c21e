// Sinusoidal encoding (Vaswani et al. 3.5): PE[pos, 2i] = sin(pos / base^(2i/d)), PE[pos, 2i+1] = cos(pos /
// base^(2i/d)).
#include "core/encodings/sinusoidal.hpp"

#include <cmath>

namespace rv {
namespace {

double denominator(int d, int i, double base) {
  return std::pow(base, static_cast<double>(2 * i) / d);  // 10000^(2i/d)
}

}  // namespace

double sinusoidal_theta(int d, int i, double base) {
  return 1.0 / denominator(d, i, base);
}

RowMatrixXd sinusoidal(int d, const std::vector<double>& positions, double base) {
  RowMatrixXd pe(static_cast<Eigen::Index>(positions.size()), d);  // [positions, d]
  for (int i = 0; 2 * i < d; ++i) {
    const double denom = denominator(d, i, base);
    for (std::size_t r = 0; r < positions.size(); ++r) {
      const double angle = positions[r] / denom;
      pe(static_cast<Eigen::Index>(r), 2 * i) = std::sin(angle);
      if (2 * i + 1 < d) pe(static_cast<Eigen::Index>(r), 2 * i + 1) = std::cos(angle);
    }
  }
  return pe;
}

RowMatrixXd sinusoidal_columns(int d, const std::vector<double>& positions, const std::vector<int>& dims, double base) {
  RowMatrixXd pe(static_cast<Eigen::Index>(positions.size()), static_cast<Eigen::Index>(dims.size()));
  for (std::size_t c = 0; c < dims.size(); ++c) {
    const int j = dims[c];
    const double denom = denominator(d, j / 2, base);
    for (std::size_t r = 0; r < positions.size(); ++r) {
      const double angle = positions[r] / denom;
      pe(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  }
  return pe;
}

}  // namespace rv
