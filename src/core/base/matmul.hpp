// Row-major matrix products for the lab's decoder and the forward pass (core/infer), as plain loops the compiler
// vectorises. Internal linkage: each file gets its own copy built with its own flags (Eigen's shared product templates
// may be linked from a file optimised for size, which made the browser's training step 8x slower).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/base/sanitize.hpp"

namespace rv::detail {
namespace {

// One row of c over columns [j0, j1): c[j] (+)= sum over k of a[k] b[k][j], four k at a time in order, then the rest.
template <class S>
RV_LOOP_KERNEL inline void gemm_row(const S* ai, const S* b, Eigen::Index ldb, S* __restrict ci, Eigen::Index K,
                                    Eigen::Index j0, Eigen::Index j1) {
  Eigen::Index k = 0;
  for (; k + 4 <= K; k += 4) {
    const S a0 = ai[k], a1 = ai[k + 1], a2 = ai[k + 2], a3 = ai[k + 3];
    const S* __restrict b0 = b + k * ldb;
    const S* __restrict b1 = b0 + ldb;
    const S* __restrict b2 = b1 + ldb;
    const S* __restrict b3 = b2 + ldb;
    for (Eigen::Index j = j0; j < j1; ++j) ci[j] += (a0 * b0[j] + a1 * b1[j]) + (a2 * b2[j] + a3 * b3[j]);
  }
  for (; k < K; ++k) {
    const S ak = ai[k];
    const S* __restrict bk = b + k * ldb;
    for (Eigen::Index j = j0; j < j1; ++j) ci[j] += ak * bk[j];
  }
}

// c[M, N] (+)= a[M, K] @ b[K, N]; leading dimensions lda, ldb, ldc. Four rows of b per pass over a row of c, and c's
// columns in panels of kPanel, every row of c through one panel before the next, so the panel of b stays in cache for
// all M rows (a 576 x 1536 b is 3.5 MB). Each c[i][j] adds its terms in the same order whatever the panels.
template <class S>
RV_LOOP_KERNEL void gemm_nn(const S* a, Eigen::Index lda, const S* b, Eigen::Index ldb, S* c, Eigen::Index ldc,
                            Eigen::Index M, Eigen::Index K, Eigen::Index N, bool accumulate) {
  constexpr Eigen::Index kPanel = 256;
  if (!accumulate)
    for (Eigen::Index i = 0; i < M; ++i) std::fill(c + i * ldc, c + i * ldc + N, S(0));
  for (Eigen::Index j0 = 0; j0 < N; j0 += kPanel) {
    const Eigen::Index j1 = std::min(N, j0 + kPanel);
    for (Eigen::Index i = 0; i < M; ++i) gemm_row(a + i * lda, b, ldb, c + i * ldc, K, j0, j1);
  }
}

// c[K, N] (+)= a[M, K]^T @ b[M, N]. Four rows of a and b per pass over c.
template <class S>
RV_LOOP_KERNEL void gemm_tn(const S* a, Eigen::Index lda, const S* b, Eigen::Index ldb, S* c, Eigen::Index ldc,
                            Eigen::Index M, Eigen::Index K, Eigen::Index N, bool accumulate) {
  if (!accumulate)
    for (Eigen::Index k = 0; k < K; ++k) std::fill(c + k * ldc, c + k * ldc + N, S(0));
  Eigen::Index i = 0;
  for (; i + 4 <= M; i += 4) {
    const S *a0 = a + i * lda, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    const S* __restrict b0 = b + i * ldb;
    const S* __restrict b1 = b0 + ldb;
    const S* __restrict b2 = b1 + ldb;
    const S* __restrict b3 = b2 + ldb;
    for (Eigen::Index k = 0; k < K; ++k) {
      S* __restrict ck = c + k * ldc;
      const S s0 = a0[k], s1 = a1[k], s2 = a2[k], s3 = a3[k];
      for (Eigen::Index j = 0; j < N; ++j) ck[j] += (s0 * b0[j] + s1 * b1[j]) + (s2 * b2[j] + s3 * b3[j]);
    }
  }
  for (; i < M; ++i) {
    const S* ai = a + i * lda;
    const S* __restrict bi = b + i * ldb;
    for (Eigen::Index k = 0; k < K; ++k) {
      S* __restrict ck = c + k * ldc;
      const S s = ai[k];
      for (Eigen::Index j = 0; j < N; ++j) ck[j] += s * bi[j];
    }
  }
}

template <class X>
constexpr bool row_major() {
  return bool(std::decay_t<X>::IsRowMajor);
}

}  // namespace

// c = a @ b, or c += a @ b with accumulate. Row-major Eigen matrices or row blocks; c is sized already.
template <class A, class B, class C>
void matmul(const A& a, const B& b, C&& c, bool accumulate = false) {
  static_assert(row_major<A>() && row_major<B>() && row_major<C>(), "matmul takes row-major operands");
  eigen_assert(a.cols() == b.rows() && c.rows() == a.rows() && c.cols() == b.cols());
  gemm_nn(a.data(), a.outerStride(), b.data(), b.outerStride(), c.data(), c.outerStride(), a.rows(), a.cols(), b.cols(),
          accumulate);
}

// c = a^T @ b (a [M, K], b [M, N], c [K, N]).
template <class A, class B, class C>
void matmul_tn(const A& a, const B& b, C&& c) {
  static_assert(row_major<A>() && row_major<B>() && row_major<C>(), "matmul_tn takes row-major operands");
  eigen_assert(a.rows() == b.rows() && c.rows() == a.cols() && c.cols() == b.cols());
  gemm_tn(a.data(), a.outerStride(), b.data(), b.outerStride(), c.data(), c.outerStride(), a.rows(), a.cols(), b.cols(),
          false);
}

// c = a @ w^T for a weight w [R, N] (a [M, N], c [M, R]): w^T goes through `scratch` (grown to the largest weight,
// then reused without allocating) so the product runs along contiguous rows.
template <class A, class W, class C, class S>
RV_LOOP_KERNEL void matmul_nt(const A& a, const W& w, C&& c, std::vector<S>& scratch) {
  static_assert(row_major<A>() && row_major<W>() && row_major<C>(), "matmul_nt takes row-major operands");
  eigen_assert(a.cols() == w.cols() && c.rows() == a.rows() && c.cols() == w.rows());
  const Eigen::Index R = w.rows(), N = w.cols();
  if (scratch.size() < static_cast<std::size_t>(R * N)) scratch.resize(static_cast<std::size_t>(R * N));
  S* t = scratch.data();  // w^T [N, R]
  for (Eigen::Index r = 0; r < R; ++r)
    for (Eigen::Index n = 0; n < N; ++n) t[n * R + r] = w.data()[r * w.outerStride() + n];
  gemm_nn(a.data(), a.outerStride(), t, R, c.data(), c.outerStride(), a.rows(), N, R, false);
}

}  // namespace rv::detail
