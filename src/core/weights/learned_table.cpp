// The learned position table's analysis and where checkpoints keep it (core/weights/learned_table.hpp).
#include "core/weights/learned_table.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "core/base/matmul.hpp"

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

// G = A^T A [n, n] for a row-major A [m, n], by core/base/matmul.hpp's loops a block of G's rows at a time, so the
// block being summed stays in cache while A streams past (one pass over all of G per four rows of A would not).
RowMatrixXd gram_of_columns(const RowMatrixXd& A) {
  const Eigen::Index m = A.rows(), n = A.cols();
  constexpr Eigen::Index kBlock = 32;  // 32 rows of a 768-wide G: 196 KB
  RowMatrixXd G(n, n);
  for (Eigen::Index k0 = 0; k0 < n; k0 += kBlock)
    detail::gemm_tn(A.data() + k0, n, A.data(), n, G.data() + k0 * n, n, m, std::min(kBlock, n - k0), n, false);
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

// The largest `count` eigenpairs of the symmetric G: every eigenvalue (descending) from its tridiagonal form, and the
// top eigenvectors by inverse iteration on that form (each kept orthogonal to those before it), mapped back through
// the Householder reflections. O(n^3) once for the reduction; the full eigenvector solve would cost 4x more.
void top_eigenpairs(const Eigen::MatrixXd& G, Eigen::Index count, Eigen::VectorXd& values, Eigen::MatrixXd& vectors) {
  const Eigen::Index n = G.rows();
  Eigen::Tridiagonalization<Eigen::MatrixXd> tri(G);
  const Eigen::VectorXd diag = tri.diagonal(), sub = tri.subDiagonal();
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
  vectors.resize(n, count);  // one column at a time: Householder's unblocked path, no matrix-product kernels
  for (Eigen::Index j = 0; j < count; ++j) vectors.col(j) = tri.matrixQ() * Y.col(j);
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
  const RowMatrixXd G = by_columns ? gram_of_columns(C) : gram_of_columns(RowMatrixXd(C.transpose()));
  const Eigen::Index top = std::min<Eigen::Index>(3, n);
  Eigen::VectorXd values;
  Eigen::MatrixXd vectors;
  top_eigenpairs(Eigen::Map<const Eigen::MatrixXd>(G.data(), n, n), top, values, vectors);
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
  RowMatrixXd out(n, n);
  std::vector<double> scratch;
  detail::matmul_nt(S, S, out, scratch);
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

Expected<FoundTable> find_learned_table(Checkpoint& c, const std::string& tensor, int offset) {
  FoundTable f;
  f.offset = offset;
  if (!tensor.empty()) {
    f.tensor = c.find(tensor);
    if (!f.tensor) return bad_request("the checkpoint holds no tensor \"" + tensor + "\"");
  } else {
    for (const std::string& name : learned_table_names()) {
      auto it = std::find_if(c.tensors().begin(), c.tensors().end(), [&](const TensorInfo& t) { return t.name == name; });
      if (it != c.tensors().end()) {
        f.tensor = &*it;
        break;
      }
    }
    if (!f.tensor) {
      std::string held;
      for (std::size_t i = 0; i < c.tensors().size() && i < 20; ++i) held += (i ? ", " : "") + c.tensors()[i].name;
      if (c.tensors().size() > 20) held += ", ... (" + std::to_string(c.tensors().size()) + " tensors)";
      return bad_request("no learned position table: looked for wpe.weight, decoder.embed_positions.weight and "
                         "embeddings.position_embeddings.weight (bare or under transformer., model., bert., roberta., "
                         "distilbert.) and the lab's pos_emb; the checkpoint holds " + (held.empty() ? std::string("no tensors") : held));
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
