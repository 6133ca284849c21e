// exp, log and erf computed by core itself, the same bits on every build (docs/building.md).
// The float versions are what the lab trains with: branch-free, so loops over them vectorise, and written in
// internal linkage so that each file inlines its own copy built with its own flags (as core/base/matmul.hpp does).
// Against the platform's libm (tests/core/test_portable_math.cpp): in float all three within 1 ulp; in double exp
// within 1 ulp, erf 3, log 4 (random.hpp's portable_log, the random stream's).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <cstring>

#include "core/base/random.hpp"

namespace rv::math {

double exp_double(double x);  // portable_math.cpp
double erf_double(double x);

namespace {

inline std::uint32_t float_bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
inline float bits_float(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// e^x = 2^k e^r, k = round(x / ln 2), r = x - k ln 2 (in two parts, exact for |k| < 256), e^r by a polynomial of
// degree 7; 2^k applied as two powers of two, so results that underflow to subnormals are rounded once.
inline float exp(float x) {
  x = x < -104.0f ? -104.0f : x;  // e^-104 is 0 in float, e^89 is inf; a NaN passes both
  x = x > 89.0f ? 89.0f : x;
  const float shifter = 12582912.0f;  // 1.5 * 2^23: the sum below is rounded to an integer
  const float t = x * 1.44269504088896341f + shifter;
  const float k = t - shifter;
  const std::int32_t ki = static_cast<std::int32_t>(float_bits(t) - float_bits(shifter));
  const float r = (x - k * 0.693359375f) + k * 2.12194440e-4f;  // ln 2 = 0.693359375 - 2.12194440e-4
  // e^r - 1 - r = r^2 (1/2 + r/6 + ...) for |r| <= 0.35
  float p = 1.98756915e-4f;
  p = p * r + 1.39819995e-3f;
  p = p * r + 8.33345190e-3f;
  p = p * r + 4.16657959e-2f;
  p = p * r + 1.66666655e-1f;
  p = p * r + 5.00000012e-1f;
  const float er = (p * (r * r) + r) + 1.0f;
  const std::int32_t k1 = ki / 2, k2 = ki - k1;  // each in [-75, 65]: normal powers of two
  return er * bits_float(static_cast<std::uint32_t>(k1 + 127) << 23) *
         bits_float(static_cast<std::uint32_t>(k2 + 127) << 23);
}

// erf(x) = x P(x^2) / Q(x^2) on [-4, 4] (past 3.92 erf rounds to +-1 in float), in double and rounded once: a
// rational fit of erf(x)/x with relative error 2.1e-9.
inline float erf(float x) {
  double t = x;
  t = t < -4.0 ? -4.0 : t;
  t = t > 4.0 ? 4.0 : t;
  const double z = t * t;
  double p = -1.3202329507411292e-08;
  p = p * z + 4.684796857893497e-06;
  p = p * z + 0.00037960947137355514;
  p = p * z + 0.0038496097570669754;
  p = p * z + 0.05431691543752449;
  p = p * z + 0.18520312786230922;
  p = p * z + 1.1283791693790393;
  double q = 6.311075753705642e-05;
  q = q * z + 0.0013075702997873034;
  q = q * z + 0.01546208843873652;
  q = q * z + 0.11395839196950507;
  q = q * z + 0.49746541244539605;
  q = q * z + 1.0;
  return static_cast<float>(t * p / q);
}

// tanh(y) = sign(y) (1 - e) / (1 + e), e = e^(-2|y|): through exp above, so the same bits on every build; within
// 2.5e-7 of libm absolutely (not relatively near 0): what 1 + tanh in GELU and cap * tanh in the soft caps need.
inline float tanh(float y) {
  const float e = exp(-2.0f * (y < 0 ? -y : y));
  const float t = (1.0f - e) / (1.0f + e);
  return y < 0 ? -t : t;
}

inline float log(float x) {
  return static_cast<float>(portable_log(x));  // core's log in double (random.hpp), rounded once
}
inline double exp(double x) {
  return exp_double(x);
}
inline double log(double x) {
  return portable_log(x);
}
inline double erf(double x) {
  return erf_double(x);
}

// The same, coefficient-wise over an Eigen array expression.
template <class X>
auto exp(const Eigen::ArrayBase<X>& x) {
  return x.derived().unaryExpr([](typename X::Scalar v) { return math::exp(v); });
}
template <class X>
auto erf(const Eigen::ArrayBase<X>& x) {
  return x.derived().unaryExpr([](typename X::Scalar v) { return math::erf(v); });
}

}  // namespace
}  // namespace rv::math
