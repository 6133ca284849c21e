// Row-major Eigen matrix alias: [rows, cols] with each row contiguous, the layout torch and heatmaps expect.
#pragma once

#include <Eigen/Core>

namespace rv {

using RowMatrixXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

}  // namespace rv
