// Sums in one order on every build, whatever the SIMD width (docs/building.md): four running sums,
// s_j over the terms i = j mod 4 in increasing i, then (s0 + s1) + (s2 + s3). Eigen's own reductions add in an
// order that follows its packet size (4 floats natively with SSE, 8 with AVX, 1 in the page).
#pragma once

#include <Eigen/Core>
#include <cmath>

namespace rv {
namespace {  // internal linkage, as core/base/matmul.hpp: each file keeps its own copy, built with its own flags

template <class S, class F>
inline S fixed_sum(Eigen::Index n, const F& term) {
  S s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  Eigen::Index i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += term(i);
    s1 += term(i + 1);
    s2 += term(i + 2);
    s3 += term(i + 3);
  }
  if (i < n) s0 += term(i);
  if (i + 1 < n) s1 += term(i + 1);
  if (i + 2 < n) s2 += term(i + 2);
  return (s0 + s1) + (s2 + s3);
}

// x . y over n values.
template <class S>
inline S fixed_dot(const S* x, const S* y, Eigen::Index n) {
  return fixed_sum<S>(n, [x, y](Eigen::Index i) { return x[i] * y[i]; });
}

// The sum of a vector expression's coefficients.
template <class X>
inline typename X::Scalar fixed_sum(const Eigen::DenseBase<X>& x) {
  const X& e = x.derived();
  return fixed_sum<typename X::Scalar>(e.size(), [&e](Eigen::Index i) { return e.coeff(i); });
}

// Each row's sum of a matrix or array expression, as a column array expression (evaluated where it is assigned).
template <class X>
inline auto fixed_row_sums(const Eigen::DenseBase<X>& x) {
  using S = typename X::Scalar;
  return Eigen::Array<S, Eigen::Dynamic, 1>::NullaryExpr(x.rows(), [e = x.derived()](Eigen::Index r) {
    return fixed_sum<S>(e.cols(), [&e, r](Eigen::Index c) { return e.coeff(r, c); });
  });
}

// The Euclidean norm of a vector expression, its squares summed in fixed_sum's order.
template <class X>
inline typename X::Scalar fixed_norm(const Eigen::MatrixBase<X>& x) {
  return std::sqrt(fixed_sum(x.derived().array().square()));
}

}  // namespace
}  // namespace rv
