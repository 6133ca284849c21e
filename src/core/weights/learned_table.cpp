// The learned position table's analysis and where checkpoints keep it (core/weights/learned_table.hpp).
#include "core/weights/learned_table.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

namespace rv {
namespace {

// The rows scaled to unit length (a zero row stays zero): cosines become dot products.
RowMatrixXd unit_rows(const RowMatrixXd& P, const Eigen::VectorXd& norm) {
  RowMatrixXd N = P;
  for (Eigen::Index t = 0; t < P.rows(); ++t)
    if (norm[t] > 0) N.row(t) /= norm[t];
    else N.row(t).setZero();
  return N;
}

// In-place radix-2 FFT of a power-of-two length, with the twiddles exp(-2 pi i k / n) given ([n / 2]).
void fft(std::complex<double>* z, int n, const std::vector<std::complex<double>>& twiddle, bool inverse) {
  for (int i = 1, j = 0; i < n; ++i) {  // bit reversal
    int bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(z[i], z[j]);
  }
  for (int len = 2; len <= n; len <<= 1) {
    const int step = n / len;
    for (int i = 0; i < n; i += len)
      for (int k = 0; k < len / 2; ++k) {
        const std::complex<double> w = inverse ? std::conj(twiddle[k * step]) : twiddle[k * step];
        const std::complex<double> u = z[i + k], v = z[i + k + len / 2] * w;
        z[i + k] = u + v;
        z[i + k + len / 2] = u - v;
      }
  }
}

// out[k] = sum over t < rows - k and every column j of N[t, j] N[t + k, j], k = 0..K: the columns' autocorrelations
// summed, by FFT (zero-padded to n >= rows + K, so nothing wraps), two real columns packed in one complex transform.
// O(dim rows log rows) in place of the direct O(dim rows K); rounding ~1e-16 of sum |N|^2 = rows.
Eigen::VectorXd summed_autocorrelation(const RowMatrixXd& N, Eigen::Index K) {
  const Eigen::Index rows = N.rows(), dim = N.cols();
  int n = 1;
  while (n < rows + K) n <<= 1;
  std::vector<std::complex<double>> twiddle(std::max(1, n / 2)), z(n);
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  for (int k = 0; k < n / 2; ++k) twiddle[k] = std::polar(1.0, -kTwoPi * k / n);
  std::vector<double> power(n, 0.0);
  for (Eigen::Index j = 0; j < dim; j += 2) {
    const bool pair = j + 1 < dim;
    std::fill(z.begin(), z.end(), std::complex<double>(0, 0));
    for (Eigen::Index t = 0; t < rows; ++t) z[t] = {N(t, j), pair ? N(t, j + 1) : 0.0};
    fft(z.data(), n, twiddle, false);
    // z = x_a + i x_b: |X_a[k]|^2 + |X_b[k]|^2 = (|Z[k]|^2 + |Z[n - k]|^2) / 2
    for (int k = 0; k < n; ++k) power[k] += 0.5 * (std::norm(z[k]) + std::norm(z[(n - k) % n]));
  }
  for (int k = 0; k < n; ++k) z[k] = power[k];
  fft(z.data(), n, twiddle, true);
  Eigen::VectorXd out(K + 1);
  for (Eigen::Index k = 0; k <= K; ++k) out[k] = z[k].real() / n;
  return out;
}

// The heavy loops, each a small function called many times, as plain loops the compiler vectorises: the browser's
// engine runs a function's first calls unoptimised and swaps its optimised build in between calls, so a loop inside
// one long call would never be optimised (and Eigen's kernels run unvectorised in WebAssembly).
// y += a0 x0 + a1 x1 + a2 x2 + a3 x3
[[gnu::noinline]] void axpy4(double* __restrict y, const double* __restrict x0, const double* __restrict x1,
                             const double* __restrict x2, const double* __restrict x3, double a0, double a1, double a2,
                             double a3, Eigen::Index n) {
  for (Eigen::Index j = 0; j < n; ++j) y[j] += (a0 * x0[j] + a1 * x1[j]) + (a2 * x2[j] + a3 * x3[j]);
}
// y += a x
[[gnu::noinline]] void axpy(double* __restrict y, const double* __restrict x, double a, Eigen::Index n) {
  for (Eigen::Index j = 0; j < n; ++j) y[j] += a * x[j];
}
// y -= a v + b w
[[gnu::noinline]] void rank2_row(double* __restrict y, const double* __restrict v, const double* __restrict w,
                                 double a, double b, Eigen::Index n) {
  for (Eigen::Index j = 0; j < n; ++j) y[j] -= a * w[j] + b * v[j];
}

// For a row i of a symmetric matrix's upper triangle a[j], j in [0, n): p[j] += vi a[j] (the column's share of A v)
// and the row's own share, sum of a[j] v[j], returned. Its sum may be reordered (clang: reassociate), so it vectorises.
[[gnu::noinline]] double symv_row(const double* __restrict a, const double* __restrict v, double* __restrict p,
                                  double vi, Eigen::Index n) {
#if defined(__clang__)
#pragma clang fp reassociate(on)
#endif
  double sum = 0;
  for (Eigen::Index j = 0; j < n; ++j) {
    p[j] += vi * a[j];
    sum += a[j] * v[j];
  }
  return sum;
}

// G = A^T A [n, n] for a row-major A [m, n]: G[k, :] += A[i, k] A[i, :] four rows of A at a time, a block of G's rows
// at a time so the block being summed stays in cache while A streams past.
RowMatrixXd gram_of_columns(const RowMatrixXd& A) {
  const Eigen::Index m = A.rows(), n = A.cols();
  constexpr Eigen::Index kBlock = 32;  // 32 rows of a 768-wide G: 196 KB
  RowMatrixXd G = RowMatrixXd::Zero(n, n);
  for (Eigen::Index k0 = 0; k0 < n; k0 += kBlock) {
    const Eigen::Index k1 = std::min(n, k0 + kBlock);
    Eigen::Index i = 0;  // G is symmetric: the block's rows from column k0 on, the rest mirrored below
    for (; i + 4 <= m; i += 4) {
      const double *a0 = A.row(i).data(), *a1 = A.row(i + 1).data(), *a2 = A.row(i + 2).data(),
                   *a3 = A.row(i + 3).data();
      for (Eigen::Index k = k0; k < k1; ++k)
        axpy4(G.row(k).data() + k0, a0 + k0, a1 + k0, a2 + k0, a3 + k0, a0[k], a1[k], a2[k], a3[k], n - k0);
    }
    for (; i < m; ++i)
      for (Eigen::Index k = k0; k < k1; ++k) axpy(G.row(k).data() + k0, A.row(i).data() + k0, A(i, k), n - k0);
  }
  for (Eigen::Index k = 1; k < n; ++k)  // G[k, j] for j < k from G[j, k], which row j's block holds
    for (Eigen::Index j = 0; j < k; ++j) G(k, j) = G(j, k);
  return G;
}

// Solves (T - shift I) x = b in place for the symmetric tridiagonal T (diag, sub), by LU with partial pivoting
// (LAPACK's dgttrf/dgttrs); a zero pivot becomes `tiny` (inverse iteration wants the near-singular solve).
void shifted_tridiagonal_solve(const Eigen::VectorXd& diag, const Eigen::VectorXd& sub, double shift, double tiny,
                               Eigen::VectorXd& x) {
  const Eigen::Index n = diag.size();
  Eigen::VectorXd d = diag.array() - shift, du(std::max<Eigen::Index>(n - 1, 0)), du2(std::max<Eigen::Index>(n - 2, 0)),
      dl(std::max<Eigen::Index>(n - 1, 0));
  for (Eigen::Index i = 0; i + 1 < n; ++i) du[i] = sub[i], dl[i] = sub[i];
  du2.setZero();
  std::vector<char> swapped(n, 0);
  for (Eigen::Index i = 0; i + 1 < n; ++i) {
    if (std::abs(d[i]) >= std::abs(dl[i])) {
      if (d[i] == 0) d[i] = tiny;
      const double f = dl[i] / d[i];
      dl[i] = f;
      d[i + 1] -= f * du[i];
    } else {
      const double f = d[i] / dl[i];
      d[i] = dl[i];
      dl[i] = f;
      const double t = du[i];
      du[i] = d[i + 1];
      d[i + 1] = t - f * d[i + 1];
      if (i + 2 < n) {
        du2[i] = du[i + 1];
        du[i + 1] = -f * du[i + 1];
      }
      swapped[i] = 1;
    }
  }
  if (n && d[n - 1] == 0) d[n - 1] = tiny;
  for (Eigen::Index i = 0; i + 1 < n; ++i) {  // L y = P b
    if (swapped[i]) std::swap(x[i], x[i + 1]);
    x[i + 1] -= dl[i] * x[i];
  }
  for (Eigen::Index i = n - 1; i >= 0; --i) {  // U x = y
    double v = x[i];
    if (i + 1 < n) v -= du[i] * x[i + 1];
    if (i + 2 < n) v -= du2[i] * x[i + 2];
    x[i] = v / d[i];
  }
}

// Householder tridiagonalisation of a symmetric A (row-major; its upper triangle is read and overwritten):
// Q^T A Q = T with T's diagonal `diag` and sub-diagonal `sub`, Q = H_0 H_1 ... H_{n-3}, H_k = I - beta_k v_k v_k^T
// acting on dims k+1.. (v_k kept in A's row k past the diagonal). Plain loops over contiguous rows (Golub and Van Loan
// 8.3.1) on the upper triangle only, so the compiler vectorises them wherever they are built; Eigen's reduction runs
// unvectorised in WebAssembly.
struct Tridiagonal {
  Eigen::VectorXd diag, sub, beta;
  RowMatrixXd reflectors;  // row k: v_k in columns k+1..
  // y = Q y
  void apply_q(Eigen::VectorXd& y) const {
    const Eigen::Index n = diag.size();
    for (Eigen::Index k = n - 3; k >= 0; --k) {
      if (beta[k] == 0) continue;
      const double* v = reflectors.row(k).data();
      double dot = 0;
      for (Eigen::Index i = k + 1; i < n; ++i) dot += v[i] * y[i];
      const double f = beta[k] * dot;
      for (Eigen::Index i = k + 1; i < n; ++i) y[i] -= f * v[i];
    }
  }
};

Tridiagonal tridiagonalize(RowMatrixXd A) {
  const Eigen::Index n = A.rows();
  Tridiagonal t;
  t.diag.resize(n);
  t.sub.setZero(std::max<Eigen::Index>(n - 1, 0));
  t.beta.setZero(std::max<Eigen::Index>(n, 1));
  std::vector<double> p(n), w(n);
  for (Eigen::Index k = 0; k + 2 < n; ++k) {
    double* v = A.row(k).data();  // x = A[k, k+1..] (= the column below the diagonal), made v in place
    double norm2 = 0;
    for (Eigen::Index i = k + 1; i < n; ++i) norm2 += v[i] * v[i];
    const double norm = std::sqrt(norm2);
    const double alpha = v[k + 1] > 0 ? -norm : norm;
    t.sub[k] = alpha;
    const double vv = norm2 - v[k + 1] * v[k + 1] + (v[k + 1] - alpha) * (v[k + 1] - alpha);
    if (norm == 0 || vv == 0) continue;  // already reduced: H_k = I
    v[k + 1] -= alpha;
    const double beta = 2.0 / vv;
    t.beta[k] = beta;
    // p = beta A22 v = beta sum_i v_i A22[i, :] (A22 is symmetric): row updates, which vectorise (a dot product's
    // sum would not be reordered); then w = p - (beta / 2) (p . v) v
    // A22 is kept as its upper triangle (j >= i): row i's part past the diagonal serves both row i and column i
    std::fill(p.begin() + k + 1, p.end(), 0.0);
    for (Eigen::Index i = k + 1; i < n; ++i) {
      const double* a = A.row(i).data();
      p[i] += a[i] * v[i] + symv_row(a + i + 1, v + i + 1, p.data() + i + 1, v[i], n - i - 1);
    }
    for (Eigen::Index i = k + 1; i < n; ++i) p[i] *= beta;
    double pv = 0;
    for (Eigen::Index i = k + 1; i < n; ++i) pv += p[i] * v[i];
    for (Eigen::Index i = k + 1; i < n; ++i) w[i] = p[i] - 0.5 * beta * pv * v[i];
    for (Eigen::Index i = k + 1; i < n; ++i)  // A22 -= v w^T + w v^T, its upper triangle
      rank2_row(A.row(i).data() + i, v + i, w.data() + i, v[i], w[i], n - i);
  }
  for (Eigen::Index k = 0; k < n; ++k) t.diag[k] = A(k, k);
  if (n >= 2) t.sub[n - 2] = A(n - 2, n - 1);
  t.reflectors = std::move(A);
  return t;
}

// The largest `count` eigenpairs of the symmetric G: every eigenvalue (descending) from its tridiagonal form, and the
// top eigenvectors by inverse iteration on that form (each kept orthogonal to those before it), mapped back through
// the Householder reflections. O(n^3) once for the reduction; the full eigenvector solve would cost 4x more.
void top_eigenpairs(RowMatrixXd G, Eigen::Index count, Eigen::VectorXd& values, Eigen::MatrixXd& vectors) {
  const Eigen::Index n = G.rows();
  const Tridiagonal tri = tridiagonalize(std::move(G));
  const Eigen::VectorXd& diag = tri.diag;
  const Eigen::VectorXd& sub = tri.sub;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig;
  eig.computeFromTridiagonal(diag, sub, Eigen::EigenvaluesOnly);
  values = eig.eigenvalues().reverse();
  const double scale = std::max(values.cwiseAbs().maxCoeff(), 1e-300);
  const double tiny = scale * 1e-15;
  Eigen::MatrixXd Y(n, count);
  for (Eigen::Index j = 0; j < count; ++j) {
    Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(n, 1.0, 2.0);  // a start with a part along every eigenvector
    for (int it = 0; it < 4; ++it) {
      shifted_tridiagonal_solve(diag, sub, values[j], tiny, y);
      for (Eigen::Index i = 0; i < j; ++i) y -= Y.col(i).dot(y) * Y.col(i);
      const double norm = y.norm();
      if (!(norm > 0) || !std::isfinite(norm)) {
        y = Eigen::VectorXd::Unit(n, j);
        for (Eigen::Index i = 0; i < j; ++i) y -= Y.col(i).dot(y) * Y.col(i);
      }
      y.normalize();
    }
    Y.col(j) = y;
  }
  vectors.resize(n, count);
  for (Eigen::Index j = 0; j < count; ++j) {
    Eigen::VectorXd y = Y.col(j);
    tri.apply_q(y);
    vectors.col(j) = y;
  }
}

}  // namespace

LearnedTableAnalysis analyze_learned_table(const RowMatrixXd& P) {
  LearnedTableAnalysis a;
  a.rows = P.rows();
  a.dim = P.cols();
  const Eigen::Index rows = P.rows(), dim = P.cols();
  a.row_norm = P.rowwise().norm();
  const RowMatrixXd N = unit_rows(P, a.row_norm);
  a.neighbour_cos.resize(std::max<Eigen::Index>(rows - 1, 0));
  for (Eigen::Index t = 0; t + 1 < rows; ++t) a.neighbour_cos[t] = N.row(t).dot(N.row(t + 1));
  const Eigen::Index K = std::min<Eigen::Index>(std::max<Eigen::Index>(rows - 1, 0), 256);
  if (rows) {
    a.cos_by_offset = dim ? summed_autocorrelation(N, K) : Eigen::VectorXd::Zero(K + 1);
    for (Eigen::Index k = 0; k <= K; ++k) a.cos_by_offset[k] /= double(rows - k);
  }
  if (rows == 0 || dim == 0) return a;
  // The spectrum of C = P - mean row from the smaller Gram matrix (C^T C [dim, dim], or C C^T [rows, rows]): its
  // eigenvalues are the squared singular values. About 4x faster than the SVD of C (1024 x 768: one rank update
  // and one tridiagonal reduction), and as exact for the large ones; a singular value is lost below ~1e-8 of the
  // largest (the eigenvalue's rounding, 1e-16 of s_max^2, is its square): those come out as noise of that size
  // or 0, and their share of the energy stays exact to ~1e-16.
  const RowMatrixXd C = P.rowwise() - P.colwise().mean();
  const bool by_columns = rows >= dim;
  const Eigen::Index n = std::min(rows, dim);
  // symmetric: its row-major data is its column-major data
  RowMatrixXd G = by_columns ? gram_of_columns(C) : gram_of_columns(RowMatrixXd(C.transpose()));
  const Eigen::Index top = std::min<Eigen::Index>(3, n);
  Eigen::VectorXd values;
  Eigen::MatrixXd vectors;
  top_eigenpairs(std::move(G), top, values, vectors);
  a.singular_values = values.cwiseMax(0.0).cwiseSqrt();
  const Eigen::VectorXd sq = a.singular_values.array().square();
  const double total = sq.sum();
  a.energy.resize(sq.size());
  double running = 0;
  for (Eigen::Index k = 0; k < sq.size(); ++k) {
    running += sq[k];
    a.energy[k] = total > 0 ? running / total : 0.0;
    if (total > 0 && !a.rank90 && a.energy[k] >= 0.90) a.rank90 = int(k + 1);
    if (total > 0 && !a.rank99 && a.energy[k] >= 0.99) a.rank99 = int(k + 1);
  }
  a.components.resize(rows, top);
  for (Eigen::Index j = 0; j < top; ++j) {
    // U[:, j] s_j: C v_j from a right singular vector, or u_j s_j from a left one
    Eigen::VectorXd c = by_columns ? Eigen::VectorXd(C * vectors.col(j))
                                   : Eigen::VectorXd(vectors.col(j) * a.singular_values[j]);
    if (a.singular_values[j] == 0) c.setZero();
    Eigen::Index at = 0;
    c.cwiseAbs().maxCoeff(&at);
    if (c[at] < 0) c = -c;
    a.components.col(j) = c;
  }
  return a;
}

MeanSd mean_sd(const Eigen::VectorXd& v) {
  if (v.size() == 0) return {};
  const double mean = v.mean();
  return {mean, std::sqrt((v.array() - mean).square().mean())};
}

Eigen::Index sampled_row(Eigen::Index rows, Eigen::Index side, Eigen::Index i) {
  return side > 1 ? (i * (rows - 1)) / (side - 1) : 0;
}

RowMatrixXd sampled_cosines(const RowMatrixXd& P, int side) {
  const Eigen::Index n = std::min<Eigen::Index>(std::max(side, 0), P.rows());
  RowMatrixXd S(n, P.cols());
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index t = sampled_row(P.rows(), n, i);
    const double norm = P.row(t).norm();
    if (norm > 0) S.row(i) = P.row(t) / norm;
    else S.row(i).setZero();
  }
  RowMatrixXd out(n, n);  // dot products of unit rows (not Eigen's product kernels: see axpy4)
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j <= i; ++j) out(i, j) = out(j, i) = S.row(i).dot(S.row(j));
  return out;
}

std::vector<std::string> learned_table_names() {
  std::vector<std::string> out;
  for (const char* name : {"wpe.weight", "decoder.embed_positions.weight", "embeddings.position_embeddings.weight"})
    for (const char* prefix : {"", "transformer.", "model.", "bert.", "roberta.", "distilbert."})
      out.push_back(std::string(prefix) + name);
  out.push_back("pos_emb");  // the lab's saved weights (core/lab/lab_checkpoint.hpp)
  return out;
}

int learned_table_offset(const std::string& model_type) {
  return model_type == "opt" || model_type == "roberta" ? 2 : 0;
}

std::string learned_table_names_words() {
  return "wpe.weight, decoder.embed_positions.weight and embeddings.position_embeddings.weight (bare or under "
         "transformer., model., bert., roberta., distilbert.) and the lab's pos_emb";
}

Expected<FoundTable> find_learned_table(Checkpoint& c, const std::string& tensor, int offset) {
  FoundTable f;
  f.offset = offset;
  if (!tensor.empty()) {
    f.tensor = c.find(tensor);
    if (!f.tensor) return bad_request("the checkpoint holds no tensor \"" + tensor + "\"");
  } else {
    for (const std::string& name : learned_table_names()) {
      auto it =
          std::find_if(c.tensors().begin(), c.tensors().end(), [&](const TensorInfo& t) { return t.name == name; });
      if (it != c.tensors().end()) {
        f.tensor = &*it;
        break;
      }
    }
    if (!f.tensor) {
      std::string held;
      for (std::size_t i = 0; i < c.tensors().size() && i < 20; ++i) held += (i ? ", " : "") + c.tensors()[i].name;
      if (c.tensors().size() > 20) held += ", ... (" + std::to_string(c.tensors().size()) + " tensors)";
      return bad_request("no learned position table: looked for " + learned_table_names_words() +
                         "; the checkpoint holds " + (held.empty() ? std::string("no tensors") : held));
    }
  }
  if (f.tensor->shape.size() != 2)
    return bad_request("tensor \"" + f.tensor->name + "\" is not a [rows, dim] table (" +
                       std::to_string(f.tensor->shape.size()) + " dimensions)");
  if (offset < 0 || offset >= f.tensor->shape[0])
    return bad_request("offset " + std::to_string(offset) + " leaves no position rows in \"" + f.tensor->name +
                       "\" (" + std::to_string(f.tensor->shape[0]) + " rows)");
  Expected<RowMatrixXd> table = c.read(*f.tensor);
  if (!table) return table.error();
  f.positions = table->bottomRows(table->rows() - offset);
  return f;
}

}  // namespace rv
