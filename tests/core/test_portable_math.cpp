// core's own exp, log and erf (portable_math.hpp) against the platform's libm over dense ranges, with their stated
// largest errors in ulps, their edge values, a few exact bits; and fixed_sum's order (fixed_sum.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/base/fixed_sum.hpp"
#include "core/base/portable_math.hpp"

using namespace rv;

namespace {

// Floats and doubles as integers whose difference counts the representable values between them (ulps).
std::int64_t ordered(float x) {
  std::int32_t i;
  std::memcpy(&i, &x, sizeof i);
  return i < 0 ? -static_cast<std::int64_t>(i & 0x7fffffff) : i;
}
std::int64_t ordered(double x) {
  std::int64_t i;
  std::memcpy(&i, &x, sizeof i);
  return i < 0 ? -(i & 0x7fffffffffffffffLL) : i;
}
template <class T>
std::int64_t ulps(T a, T b) {
  const std::int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

// The largest error of f against the float rounding of the double libm function ref, over every `stride`-th float
// of [lo, hi] (both ends of one sign).
template <class F, class R>
std::int64_t max_ulps_float(float lo, float hi, std::uint32_t stride, F f, R ref) {
  std::uint32_t a, b;
  std::memcpy(&a, &lo, sizeof a);
  std::memcpy(&b, &hi, sizeof b);
  if (a > b) std::swap(a, b);
  std::int64_t worst = 0;
  for (std::uint64_t u = a; u <= b; u += stride) {
    float x;
    const std::uint32_t v = static_cast<std::uint32_t>(u);
    std::memcpy(&x, &v, sizeof x);
    worst = std::max(worst, ulps(f(x), static_cast<float>(ref(static_cast<double>(x)))));
  }
  return worst;
}

template <class F, class R>
std::int64_t max_ulps_double(double lo, double hi, int n, F f, R ref) {
  std::int64_t worst = 0;
  for (int i = 0; i <= n; ++i) {
    const double x = lo + (hi - lo) * i / n;
    worst = std::max(worst, ulps(f(x), ref(x)));
  }
  return worst;
}

std::uint32_t bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

}  // namespace

TEST_CASE("float exp, erf and log are within 1 ulp of libm's double rounded to float") {
  const auto exp = [](float x) { return math::exp(x); };
  const auto erf = [](float x) { return math::erf(x); };
  const auto log = [](float x) { return math::log(x); };
  const auto libm_exp = [](double x) { return std::exp(x); };
  const auto libm_erf = [](double x) { return std::erf(x); };
  const auto libm_log = [](double x) { return std::log(x); };
  // every 127th float: 9 million of exp's and of erf's per sign (every float of them, and every third of log's,
  // gave the same maxima once)
  CHECK(max_ulps_float(-0.0f, -104.0f, 127, exp, libm_exp) <= 1);  // softmax and GELU' arguments, subnormals too
  CHECK(max_ulps_float(0.0f, 88.72f, 127, exp, libm_exp) <= 1);
  CHECK(max_ulps_float(0.0f, 6.0f, 127, erf, libm_erf) <= 1);
  CHECK(max_ulps_float(-0.0f, -6.0f, 127, erf, libm_erf) <= 1);
  CHECK(max_ulps_float(1e-45f, std::numeric_limits<float>::max(), 127, log, libm_log) <= 1);
}

TEST_CASE("float tanh is within 2.5e-7 of libm's, absolutely (1 + tanh in GELU, cap * tanh in the soft caps)") {
  double worst = 0;
  for (int i = -200000; i <= 200000; ++i) {
    const float x = float(i) * 5e-5f;  // [-10, 10]
    worst = std::max(worst, std::fabs(double(math::tanh(x)) - std::tanh(double(x))));
  }
  CHECK(worst <= 2.5e-7);
  CHECK(math::tanh(0.0f) == 0.0f);
  CHECK(math::tanh(30.0f) == 1.0f);
  CHECK(math::tanh(-30.0f) == -1.0f);
  CHECK(math::tanh(-0.7f) == -math::tanh(0.7f));
}

TEST_CASE("float edge values") {
  CHECK(math::exp(0.0f) == 1.0f);
  CHECK(math::exp(-200.0f) == 0.0f);
  CHECK(math::exp(100.0f) == std::numeric_limits<float>::infinity());
  CHECK(math::exp(-std::numeric_limits<float>::infinity()) == 0.0f);
  CHECK(std::isnan(math::exp(std::numeric_limits<float>::quiet_NaN())));
  CHECK(math::exp(-100.0f) > 0.0f);  // a subnormal, as std::exp gives
  CHECK(math::erf(0.0f) == 0.0f);
  CHECK(math::erf(5.0f) == 1.0f);
  CHECK(math::erf(-5.0f) == -1.0f);
  CHECK(std::isnan(math::erf(std::numeric_limits<float>::quiet_NaN())));
  for (float x : {1e-30f, 0.1f, 0.7f, 1.3f, 2.9f}) CHECK(math::erf(-x) == -math::erf(x));
  CHECK(math::log(1.0f) == 0.0f);
  CHECK(math::log(0.0f) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(math::log(-1.0f)));
}

TEST_CASE("the same bits on every build: a few values, which em++'s build computes too") {
  CHECK(bits(math::exp(-1.0f)) == 0x3ebc5ab2u);
  CHECK(bits(math::exp(-0.3466f)) == 0x3f3503bau);
  CHECK(bits(math::erf(0.5f)) == 0x3f053f7bu);
  CHECK(bits(math::erf(2.25f)) == 0x3f7fa024u);
  CHECK(bits(math::log(11.0f)) == 0x4019771eu);
}

TEST_CASE("double exp, erf and log against libm") {
  const auto exp = [](double x) { return math::exp(x); };
  const auto erf = [](double x) { return math::erf(x); };
  const auto libm_exp = [](double x) { return std::exp(x); };
  const auto libm_erf = [](double x) { return std::erf(x); };
  CHECK(max_ulps_double(-745.0, 709.7, 400000, exp, libm_exp) <= 1);
  CHECK(max_ulps_double(-1.0, 1.0, 400000, exp, libm_exp) <= 1);
  CHECK(max_ulps_double(0.0, 6.5, 400000, erf, libm_erf) <= 3);
  CHECK(max_ulps_double(-1e-3, 1e-3, 400000, erf, libm_erf) <= 3);
  const auto log = [](double x) { return math::log(x); };  // random.hpp's portable_log
  CHECK(max_ulps_double(1e-300, 10.0, 400000, log, [](double x) { return std::log(x); }) <= 4);
  CHECK(math::erf(7.0) == 1.0);
  CHECK(math::exp(0.0) == 1.0);
  CHECK(std::isnan(math::erf(std::nan(""))));
}

TEST_CASE("fixed_sum adds in four running sums, then (s0 + s1) + (s2 + s3)") {
  const float x[] = {1e8f, 1.0f, 3.0f, 5.0f, -1e8f, 7.0f, 1.0f, 1.0f, 0.5f, 0.25f};
  const float s0 = (1e8f + -1e8f) + 0.5f, s1 = (1.0f + 7.0f) + 0.25f, s2 = 3.0f + 1.0f, s3 = 5.0f + 1.0f;
  CHECK(fixed_sum<float>(10, [&](Eigen::Index i) { return x[i]; }) == (s0 + s1) + (s2 + s3));
  CHECK(fixed_sum(Eigen::Map<const Eigen::ArrayXf>(x, 10)) == (s0 + s1) + (s2 + s3));
  const float in_order = ((((((((1e8f + 1.0f) + 3.0f) + 5.0f) + -1e8f) + 7.0f) + 1.0f) + 1.0f) + 0.5f) + 0.25f;
  CHECK(in_order != (s0 + s1) + (s2 + s3));  // the order shows
  Eigen::Array<float, 2, 10, Eigen::RowMajor> rows;
  rows.row(0) = Eigen::Map<const Eigen::Array<float, 1, 10>>(x);
  rows.row(1) = -rows.row(0);
  const Eigen::ArrayXf sums = fixed_row_sums(rows);
  CHECK(sums(0) == (s0 + s1) + (s2 + s3));
  CHECK(sums(1) == -sums(0));
  CHECK(fixed_dot(x, x, 3) == (1e16f + 1.0f) + 9.0f);
  CHECK(fixed_sum<float>(0, [](Eigen::Index) { return 1.0f; }) == 0.0f);
}
