// RoPE properties, hand-worked values, both pairings and their permutation, tensor and float32 paths, score curves.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>

#include "core/encodings/learned.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/rope_tensor.hpp"
#include "test_util.hpp"

using namespace rv;
using rv::test::randn;

TEST_CASE("check_rope_dims rejects odd, zero, negative d_head and base <= 1 or non-finite") {
  CHECK_FALSE(check_rope_dims(8, 10000.0));
  CHECK(check_rope_dims(7, 10000.0)->type == "BadRequest");
  CHECK(check_rope_dims(0, 10000.0));
  CHECK(check_rope_dims(-8, 10000.0));
  CHECK(check_rope_dims(65538, 10000.0));
  CHECK(check_rope_dims(8, 1.0));
  CHECK(check_rope_dims(8, 0.5));
  CHECK(check_rope_dims(8, -10.0));
  CHECK(check_rope_dims(8, NAN));
  CHECK(check_rope_dims(8, INFINITY));
  CHECK(check_rope_dims(7, 10000.0)->message.find("even") != std::string::npos);
  CHECK(check_rope_dims(8, 1.0)->message.find("base") != std::string::npos);
}

TEST_CASE("pairing names round-trip") {
  CHECK(std::string(pairing_name(Pairing::Interleaved)) == "interleaved");
  CHECK(std::string(pairing_name(Pairing::HalfSplit)) == "half_split");
  CHECK(parse_pairing("interleaved") == Pairing::Interleaved);
  CHECK(parse_pairing("half_split") == Pairing::HalfSplit);
  CHECK_FALSE(parse_pairing("sideways"));
  // The other frameworks' names for the same two layouts read too, and are written back canonically.
  for (const char* alias : {"llama", "gptj"}) CHECK(parse_pairing(alias) == Pairing::Interleaved);
  for (const char* alias : {"half-split", "neox", "rotate_half"}) CHECK(parse_pairing(alias) == Pairing::HalfSplit);
}

TEST_CASE("inv_freq matches base^(-2i/d) for many shapes and is strictly decreasing") {
  for (int d : {2, 4, 64, 128, 256})
    for (double base : {10000.0, 500000.0, 1.5}) {
      const Eigen::VectorXd t = rope_inv_freq(d, base);
      REQUIRE(t.size() == d / 2);
      CHECK(t[0] == 1.0);
      for (int i = 0; i < d / 2; ++i) {
        const long double ref = std::pow(static_cast<long double>(base), -2.0L * i / d);  // extended precision
        CHECK(static_cast<double>(std::fabs(t[i] - ref)) <= 2.3e-16 * t[i]);              // within 1 ulp
      }
      for (int i = 1; i < d / 2; ++i) CHECK(t[i] < t[i - 1]);
    }
}

TEST_CASE("hand-worked rotation, d_head 4: interleaved pairs (x0,x1),(x2,x3); half-split (x0,x2),(x1,x3)") {
  const Eigen::VectorXd theta = rope_inv_freq(4, 10000.0);  // [1, 0.01]
  const Eigen::Vector4d x(1, 2, 3, 4);
  const double c1 = std::cos(1.0), s1 = std::sin(1.0), c2 = std::cos(0.01), s2 = std::sin(0.01);
  const Eigen::VectorXd yi = apply_rope(x, 1.0, theta, Pairing::Interleaved);
  CHECK(yi[0] == doctest::Approx(1 * c1 - 2 * s1).epsilon(1e-15));
  CHECK(yi[1] == doctest::Approx(1 * s1 + 2 * c1).epsilon(1e-15));
  CHECK(yi[2] == doctest::Approx(3 * c2 - 4 * s2).epsilon(1e-15));
  CHECK(yi[3] == doctest::Approx(3 * s2 + 4 * c2).epsilon(1e-15));
  const Eigen::VectorXd yh = apply_rope(x, 1.0, theta, Pairing::HalfSplit);
  CHECK(yh[0] == doctest::Approx(1 * c1 - 3 * s1).epsilon(1e-15));
  CHECK(yh[2] == doctest::Approx(1 * s1 + 3 * c1).epsilon(1e-15));
  CHECK(yh[1] == doctest::Approx(2 * c2 - 4 * s2).epsilon(1e-15));
  CHECK(yh[3] == doctest::Approx(2 * s2 + 4 * c2).epsilon(1e-15));
  CHECK(rope_pair(x, 1, Pairing::Interleaved) == Eigen::Vector2d(3, 4));
  CHECK(rope_pair(x, 1, Pairing::HalfSplit) == Eigen::Vector2d(2, 4));
  // a quarter turn of pair 0 sends (1, 0) to (0, 1)
  const Eigen::VectorXd q = apply_rope(Eigen::Vector4d(1, 0, 0, 0), M_PI / 2, theta, Pairing::Interleaved);
  CHECK(std::abs(q[0]) < 1e-16);
  CHECK(q[1] == doctest::Approx(1.0).epsilon(1e-16));
}

TEST_CASE("matches Meta's complex multiply (interleaved) and HF's x*cos + rotate_half(x)*sin (half-split)") {
  const int d = 16;
  const Eigen::VectorXd theta = rope_inv_freq(d, 10000.0), x = randn(d, 3);
  const double m = 37.0;
  const Eigen::VectorXd yi = apply_rope(x, m, theta, Pairing::Interleaved);
  for (int i = 0; i < d / 2; ++i) {
    const std::complex<double> z = std::complex<double>(x[2 * i], x[2 * i + 1]) * std::polar(1.0, m * theta[i]);
    CHECK(std::abs(yi[2 * i] - z.real()) < 1e-15);
    CHECK(std::abs(yi[2 * i + 1] - z.imag()) < 1e-15);
  }
  const Eigen::VectorXd yh = apply_rope(x, m, theta, Pairing::HalfSplit);
  for (int j = 0; j < d; ++j) {
    const int i = j % (d / 2);
    const double rot_half = j < d / 2 ? -x[j + d / 2] : x[j - d / 2];  // cat(-x2, x1)
    CHECK(std::abs(yh[j] - (x[j] * std::cos(m * theta[i]) + rot_half * std::sin(m * theta[i]))) < 1e-15);
  }
}

TEST_CASE("position 0 is the identity, norms are kept, and rotations compose: R(a) R(b) = R(a+b)") {
  const Eigen::VectorXd theta = rope_inv_freq(64, 10000.0), x = randn(64, 11);
  for (Pairing p : {Pairing::Interleaved, Pairing::HalfSplit}) {
    CHECK(apply_rope(x, 0.0, theta, p) == x);
    for (double m : {1.0, 7.5, 1e3, 1e6, 1e9})
      CHECK(std::abs(apply_rope(x, m, theta, p).norm() - x.norm()) < 1e-14 * x.norm());
    const Eigen::VectorXd ab = apply_rope(apply_rope(x, 3.0, theta, p), 4.0, theta, p);
    CHECK((ab - apply_rope(x, 7.0, theta, p)).norm() < 1e-14 * x.norm());
    CHECK((apply_rope(apply_rope(x, 5.0, theta, p), -5.0, theta, p) - x).norm() < 1e-14 * x.norm());
  }
}

TEST_CASE("the two conventions agree under the permutation") {
  const int d = 32;
  const Eigen::VectorXd theta = rope_inv_freq(d, 10000.0), x = randn(d, 17);
  const std::vector<int> perm = half_split_from_interleaved_perm(d);
  CHECK(perm[0] == 0);
  CHECK(perm[1] == 2);
  CHECK(perm[d / 2] == 1);
  CHECK(perm[d - 1] == d - 1);
  const Eigen::VectorXd xh = permute_pairing(x, Pairing::Interleaved, Pairing::HalfSplit);
  CHECK(permute_pairing(xh, Pairing::HalfSplit, Pairing::Interleaved) == x);
  CHECK(xh != x);
  for (double m : {0.0, 3.0, 100.0, 12345.0}) {
    const Eigen::VectorXd a =
        permute_pairing(apply_rope(x, m, theta, Pairing::Interleaved), Pairing::Interleaved, Pairing::HalfSplit);
    CHECK(a == apply_rope(xh, m, theta, Pairing::HalfSplit));  // same arithmetic, bit-identical
  }
  CHECK(rope_pair(x, 5, Pairing::Interleaved) == rope_pair(xh, 5, Pairing::HalfSplit));
}

TEST_CASE("score depends only on m - n (both conventions)") {
  const Eigen::VectorXd theta = rope_inv_freq(64, 10000.0), q = randn(64, 1), k = randn(64, 2);
  for (Pairing p : {Pairing::Interleaved, Pairing::HalfSplit})
    for (double r : {0.0, 1.0, -3.0, 57.0, 1000.0}) {
      const double s0 = rope_score(q, k, 2000 + r, 2000, theta, p);
      for (double shift : {0.0, 1.0, 500.0, 1e5}) {
        // angle rounding grows with the absolute position: ~2e-16 * position per pair
        const double tol = 4e-16 * (2000 + std::abs(r) + shift) * q.norm() * k.norm();
        CHECK(std::abs(rope_score(q, k, 2000 + r + shift, 2000 + shift, theta, p) - s0) < tol);
      }
    }
  // and it is not independent of the offset itself
  CHECK(std::abs(rope_score(q, k, 10, 0, theta, Pairing::Interleaved) -
                 rope_score(q, k, 0, 0, theta, Pairing::Interleaved)) > 1e-3);
  // at m = n the score is the plain dot product
  CHECK(std::abs(rope_score(q, k, 42, 42, theta, Pairing::HalfSplit) - q.dot(k)) < 1e-12);
}

TEST_CASE("score curve (recurrence) equals direct scores, d_head 256, 65,536 offsets") {
  const int d = 256;
  const Eigen::VectorXd theta = rope_inv_freq(d, 10000.0), q = randn(d, 5), k = randn(d, 6);
  std::vector<double> out;
  out.reserve(65536);
  const double* before = out.data();
  for (Pairing p : {Pairing::Interleaved, Pairing::HalfSplit})
    for (double anchor : {0.0, 1e6}) {
      rope_score_curve(q, k, theta, p, anchor, -32768, 32767, out);
      REQUIRE(out.size() == 65536);
      CHECK(out.data() == before);  // no reallocation
      double worst = 0;
      for (std::size_t j = 0; j < out.size(); j += 61) {
        const double r = -32768.0 + static_cast<double>(j);
        worst = std::max(worst, std::abs(out[j] - rope_score(q, k, anchor + r, anchor, theta, p)));
      }
      CHECK(worst < 1e-10 * q.norm() * k.norm());
    }
  rope_score_curve(q, k, theta, Pairing::Interleaved, 0, 5, 4, out);
  CHECK(out.empty());
}

TEST_CASE("relative spread across anchors is at rounding level") {
  const Eigen::VectorXd theta = rope_inv_freq(64, 10000.0), q = randn(64, 8), k = randn(64, 9);
  const double spread = rope_relative_spread(q, k, theta, Pairing::Interleaved, {0.0, 100.0, 12345.0, 1e5}, 0, 200);
  CHECK(spread >= 0.0);
  CHECK(spread < 1e-9);
}

TEST_CASE("RoFormer decay bound: r = 0 gives (d/2 + 1)/2, and it decays with distance") {
  const std::vector<double> b = rope_decay_bound(128, 10000.0, {0, 1, 2, 10, 100, 1000});
  CHECK(b[0] == doctest::Approx(32.5).epsilon(1e-15));  // |S_j| = j, mean of 1..64
  for (std::size_t i = 1; i < b.size(); ++i) CHECK(b[i] < b[i - 1]);
  // hand-worked d = 2: S_1 = e^{i r theta_0} so the bound is 1 for every r
  CHECK(rope_decay_bound(2, 10000.0, {7.0})[0] == doctest::Approx(1.0).epsilon(1e-15));
  // d = 4, r = pi: theta = [1, 0.01]; |S_1| = 1, |S_2| = |e^{i pi} + e^{i 0.01 pi}|
  const double s2 = std::abs(std::polar(1.0, M_PI) + std::polar(1.0, 0.01 * M_PI));
  CHECK(rope_decay_bound(4, 10000.0, {M_PI})[0] == doctest::Approx((1.0 + s2) / 2).epsilon(1e-14));
  // symmetric in r
  CHECK(rope_decay_bound(64, 10000.0, {-13.0})[0] ==
        doctest::Approx(rope_decay_bound(64, 10000.0, {13.0})[0]).epsilon(1e-14));
}

TEST_CASE("tensor paths: [B,T,h,d] float64 equals per-vector apply_rope; float32 table path within ~1e-7") {
  const long long B = 2, T = 40, h = 3;
  const int d = 64;
  const Eigen::VectorXd theta = rope_inv_freq(d, 10000.0);
  NormalRng rng(21);
  for (Pairing p : {Pairing::Interleaved, Pairing::HalfSplit})
    for (double pos0 : {0.0, 1e3, 1e6 - T, 1e9}) {
      Tensor4d x({B, T, h, d});
      for (double& v : x.data) v = rng.normal();
      Tensor4f xf({B, T, h, d});
      for (std::size_t i = 0; i < x.size(); ++i) xf.data[i] = static_cast<float>(x.data[i]);
      std::vector<double> positions;
      for (long long t = 0; t < T; ++t) positions.push_back(pos0 + static_cast<double>(t));
      Tensor4d y = x;
      apply_rope_tensor(y, positions, theta, p);
      Tensor4f yf = xf;  // fast path with the recurrence table
      apply_rope_f32(yf.ptr(), B, T, h, d, rope_table_f32(pos0, T, theta), p);
      Tensor4f yg = xf;  // fast path with the direct table
      apply_rope_f32(yg.ptr(), B, T, h, d, rope_table_f32(positions, theta), p);
      double worst64 = 0, worst32 = 0, worst32g = 0;
      for (long long b = 0; b < B; ++b)
        for (long long t = 0; t < T; ++t)
          for (long long hh = 0; hh < h; ++hh) {
            Eigen::VectorXd row(d), rowf(d);
            for (int j = 0; j < d; ++j) {
              row[j] = x(b, t, hh, j);
              rowf[j] = xf(b, t, hh, j);
            }
            const Eigen::VectorXd ref = apply_rope(row, positions[static_cast<std::size_t>(t)], theta, p);
            const Eigen::VectorXd reff = apply_rope(rowf, positions[static_cast<std::size_t>(t)], theta, p);
            for (int j = 0; j < d; ++j) {
              worst64 = std::max(worst64, std::abs(y(b, t, hh, j) - ref[j]));
              worst32 = std::max(worst32, std::abs(yf(b, t, hh, j) - reff[j]) / rowf.norm());
              worst32g = std::max(worst32g, std::abs(yg(b, t, hh, j) - reff[j]) / rowf.norm());
            }
          }
      INFO("pos0 " << pos0 << " pairing " << pairing_name(p));
      CHECK(worst64 <= 1e-14);  // same formula and order (bit-identical unless FMA contraction differs)
      CHECK(worst32 < 2e-7);
      CHECK(worst32g < 2e-7);
    }
}

TEST_CASE("float32 table: recurrence rows match direct sin/cos to float rounding") {
  const Eigen::VectorXd theta = rope_inv_freq(128, 10000.0);
  const RopeTableF32 a = rope_table_f32(123456.0, 1000, theta);
  std::vector<double> pos;
  for (int t = 0; t < 1000; ++t) pos.push_back(123456.0 + t);
  const RopeTableF32 b = rope_table_f32(pos, theta);
  float worst = 0;
  for (std::size_t i = 0; i < a.cos.size(); ++i)
    worst = std::max({worst, std::abs(a.cos[i] - b.cos[i]), std::abs(a.sin[i] - b.sin[i])});
  CHECK(worst <= 6e-8f);  // at most one float ulp near 1
}

TEST_CASE("apply_rope_rows and rope_angle_table mirror torch.outer") {
  const Eigen::VectorXd theta = rope_inv_freq(8, 10000.0);
  Eigen::VectorXd pos(3);
  pos << 0, 3, 100;
  const Eigen::MatrixXd ang = rope_angle_table(pos, theta);
  CHECK(ang.rows() == 3);
  CHECK(ang.cols() == 4);
  CHECK(ang(1, 0) == 3.0);
  CHECK(ang(2, 1) == 10.0);
  Eigen::MatrixXd X(3, 8);
  X.setOnes();
  const Eigen::MatrixXd Y = apply_rope_rows(X, pos, theta, Pairing::Interleaved);
  for (int t = 0; t < 3; ++t)
    CHECK(Y.row(t).transpose() == apply_rope(X.row(t).transpose(), pos[t], theta, Pairing::Interleaved));
}
