// True bounds on |score(r)| for given q, k: the curve never crosses the Abel bound nor RoFormer's looser one.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <utility>

#include "core/encodings/learned.hpp"
#include "core/rope/rope.hpp"
#include "test_util.hpp"

using namespace rv;
using rv::test::randn;

namespace {
// Rounding slack: the bounds and the curve are sums of d/2 terms of size |h_i|.
double slack(const Eigen::VectorXcd& h) {
  return 1e-12 * (1.0 + h.cwiseAbs().sum());
}
}  // namespace

TEST_CASE("score bounds: the curve never exceeds the Abel bound, which never exceeds RoFormer's") {
  const long long r_max = 3000;
  std::vector<double> curve, abel, roformer;
  for (int d : {2, 4, 6, 8, 16, 64, 128, 256}) {
    for (Pairing p : {Pairing::Interleaved, Pairing::HalfSplit}) {
      for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        CAPTURE(d);
        CAPTURE(seed);
        const Eigen::VectorXd theta = rope_inv_freq(d, seed % 2 ? 10000.0 : 500000.0);
        const Eigen::VectorXd q = randn(d, 2 * seed), k = randn(d, 2 * seed + 1);
        const double tol = slack(rope_pair_products(q, k, p));
        rope_score_curve(q, k, theta, p, double(seed * 37), -r_max, r_max, curve);
        rope_score_bound_curve(q, k, theta, p, -r_max, r_max, abel, roformer);
        REQUIRE(abel.size() == curve.size());
        int crossed_abel = 0, crossed_roformer = 0, loose = 0;
        for (std::size_t j = 0; j < curve.size(); ++j) {
          crossed_abel += std::abs(curve[j]) > abel[j] + tol;
          crossed_roformer += std::abs(curve[j]) > roformer[j] + tol;
          loose += abel[j] > roformer[j] + tol;
        }
        CHECK(crossed_abel == 0);
        CHECK(crossed_roformer == 0);
        CHECK(loose == 0);
      }
    }
  }
}

TEST_CASE("score bounds: curve form equals the one-offset form, and both depend on |r| only") {
  const Eigen::VectorXd theta = rope_inv_freq(64, 10000.0), q = randn(64, 5), k = randn(64, 6);
  const Eigen::VectorXcd h = rope_pair_products(q, k, Pairing::HalfSplit);
  std::vector<double> abel, roformer;
  rope_score_bound_curve(q, k, theta, Pairing::HalfSplit, -1000, 1000, abel, roformer);
  for (long long r : {-1000LL, -999LL, -129LL, -1LL, 0LL, 1LL, 128LL, 500LL, 1000LL}) {
    CAPTURE(r);
    const ScoreBound b = rope_score_bound(h, theta, double(r));
    CHECK(abel[std::size_t(r + 1000)] == doctest::Approx(b.abel).epsilon(1e-12));
    CHECK(roformer[std::size_t(r + 1000)] == doctest::Approx(b.roformer).epsilon(1e-12));
    CHECK(abel[std::size_t(r + 1000)] == doctest::Approx(abel[std::size_t(1000 - r)]).epsilon(1e-12));
  }
  // Ranges not symmetric about 0: mirrored and computed parts agree with the one-offset form.
  for (auto [lo, hi] : {std::pair{-300LL, 100LL}, {50LL, 200LL}, {-200LL, -50LL}, {-5LL, 300LL}}) {
    rope_score_bound_curve(q, k, theta, Pairing::HalfSplit, lo, hi, abel, roformer);
    REQUIRE(abel.size() == std::size_t(hi - lo + 1));
    for (long long r = lo; r <= hi; r += 7) {
      CAPTURE(r);
      CHECK(abel[std::size_t(r - lo)] == doctest::Approx(rope_score_bound(h, theta, double(r)).abel).epsilon(1e-12));
      CHECK(roformer[std::size_t(r - lo)] ==
            doctest::Approx(rope_score_bound(h, theta, double(r)).roformer).epsilon(1e-12));
    }
  }
  // h_i = q_i conj(k_i): score(r) = Re sum h_i e^{i r theta_i}, the sign convention of apply_rope
  for (double r : {-7.0, 0.0, 3.0, 250.0}) {
    std::complex<double> z(0.0, 0.0);
    for (int i = 0; i < 32; ++i) z += h[i] * std::polar(1.0, r * theta[i]);
    CHECK(z.real() == doctest::Approx(rope_score(q, k, 11.0 + r, 11.0, theta, Pairing::HalfSplit)).epsilon(1e-12));
  }
  // RoFormer's form: max |delta h| times (d/2) times the CLI's relative bound
  double wmax = 0.0;
  for (int i = 0; i < 32; ++i) wmax = std::max(wmax, std::abs(h[i] - (i < 31 ? h[i + 1] : 0.0)));
  CHECK(rope_score_bound(h, theta, 42.0).roformer ==
        doctest::Approx(wmax * 32 * rope_decay_bound(theta, 42.0)).epsilon(1e-12));
}

TEST_CASE("score bounds: exact for one pair (d_head = 2), where |score| reaches |h_0| = |q| |k|") {
  const Eigen::VectorXd theta = rope_inv_freq(2, 10000.0), q = randn(2, 3), k = randn(2, 4);
  std::vector<double> curve, abel, roformer;
  rope_score_curve(q, k, theta, Pairing::Interleaved, 0.0, -3000, 3000, curve);
  rope_score_bound_curve(q, k, theta, Pairing::Interleaved, -3000, 3000, abel, roformer);
  double peak = 0.0;
  for (std::size_t j = 0; j < curve.size(); ++j) {
    CHECK(abel[j] == doctest::Approx(q.norm() * k.norm()).epsilon(1e-13));
    CHECK(roformer[j] == doctest::Approx(abel[j]).epsilon(1e-13));
    peak = std::max(peak, std::abs(curve[j]));
  }
  CHECK(peak <= abel[0] * (1 + 1e-13));
  CHECK(peak >= 0.9999 * abel[0]);  // theta_0 = 1 rad: some integer r lines the pair up with k
}
