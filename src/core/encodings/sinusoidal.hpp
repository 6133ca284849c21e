// Sinusoidal position encoding (Vaswani et al. 3.5): PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "core/base/matrix.hpp"

namespace rv {

// d must be even and > 0; row-major                                       # [positions, d]
RowMatrixXd sinusoidal(int d, const std::vector<double>& positions, double base = 10000.0);

}  // namespace rv
