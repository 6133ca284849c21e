// Sinusoidal position encoding (Vaswani et al. 3.5): PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "core/base/matrix.hpp"

namespace rv {

// Vaswani et al.'s base: PE's frequencies are 1 / 10000^(2i/d_model).
inline constexpr double kSinusoidalBase = 10000.0;

// The frequency of pair i (dims 2i, 2i+1) of a width-d encoding: 1 / base^(2i/d).
double sinusoidal_theta(int d, int i, double base = kSinusoidalBase);
// d must be even and > 0; row-major                                       # [positions, d]
RowMatrixXd sinusoidal(int d, const std::vector<double>& positions, double base = kSinusoidalBase);
// Only the columns `dims` (each in 0..d-1) of sinusoidal(d, positions, base), in that order, with the same values
// bit for bit: a wide encoding drawn from some of its dims without building it whole     # [positions, dims]
RowMatrixXd sinusoidal_columns(int d, const std::vector<double>& positions, const std::vector<int>& dims,
                               double base = kSinusoidalBase);

}  // namespace rv
