// Sinusoidal encoding (Vaswani et al. 3.5): PE[pos, 2i] = sin(pos / base^(2i/d)), PE[pos, 2i+1] = cos(pos /
// base^(2i/d)).
#include "core/encodings/sinusoidal.hpp"

#include <cmath>

namespace rv {

RowMatrixXd sinusoidal(int d, const std::vector<double>& positions, double base) {
  RowMatrixXd pe(static_cast<Eigen::Index>(positions.size()), d);  // [positions, d]
  for (int i = 0; 2 * i < d; ++i) {
    const double denom = std::pow(base, static_cast<double>(2 * i) / d);  // 10000^(2i/d)
    for (std::size_t r = 0; r < positions.size(); ++r) {
      const double angle = positions[r] / denom;
      pe(static_cast<Eigen::Index>(r), 2 * i) = std::sin(angle);
      if (2 * i + 1 < d) pe(static_cast<Eigen::Index>(r), 2 * i + 1) = std::cos(angle);
    }
  }
  return pe;
}

}  // namespace rv
