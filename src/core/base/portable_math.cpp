// exp and erf in double from + - * / alone (portable_math.hpp): the decoder's float64 path, decoder_grad's.
#include "core/base/portable_math.hpp"

#include <cmath>

namespace rv::math {

namespace {
constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;  // ln 2 = hi + lo

double power_of_two(std::int64_t k) {  // 2^k for -1022 <= k <= 1023
  const std::uint64_t u = static_cast<std::uint64_t>(k + 1023) << 52;
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
}  // namespace

// e^x = 2^k e^r, k = round(x / ln 2), r = (x - k hi) - k lo, |r| <= 0.35, e^r by its Taylor series to r^13.
double exp_double(double x) {
  if (x != x) return x;
  if (x > 709.8) return HUGE_VAL;
  if (x < -745.2) return 0.0;
  const double shifter = 6755399441055744.0;  // 1.5 * 2^52: the sum below is rounded to an integer
  const double k = (x * 1.44269504088896340736 + shifter) - shifter;
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double p = 1.0;  // e^r = 1 + r (1 + r/2 (1 + r/3 (... (1 + r/13))))
  for (int n = 13; n >= 1; --n) p = 1.0 + p * r / n;
  const std::int64_t ki = static_cast<std::int64_t>(k), k1 = ki / 2;
  return p * power_of_two(k1) * power_of_two(ki - k1);  // two factors: a subnormal result is rounded once
}

// erf by two series: below 1 Taylor's, its leading term added last; then 1 - erfc(x) by erfc's continued fraction
// (deeper nearer 1, where it converges slowly); +-1 past 6 (erfc(6) = 2e-17).
double erf_double(double x) {
  const double a = std::fabs(x);
  if (!(a < 6.0)) return a != a ? x : (x < 0 ? -1.0 : 1.0);
  const double two_over_sqrt_pi = 1.12837916709551257390, a2 = a * a;
  double y;
  if (a < 1.0) {
    double term = a, rest = 0.0;  // term = (-1)^n a^(2n+1) / n!
    for (int n = 1; n <= 20; ++n) {
      term *= -a2 / n;
      rest += term / (2 * n + 1);
    }
    y = two_over_sqrt_pi * (a + rest);
  } else {
    const double split = 134217729.0 * a;  // a^2 = a2 + lo exactly (Dekker): e^(-a^2) = e^(-a2) (1 - lo)
    const double ah = split - (split - a), al = a - ah;
    const double lo = ((ah * ah - a2) + 2.0 * ah * al) + al * al;
    double f = a;  // erfc(a) = e^(-a^2) / sqrt(pi) / (a + (1/2) / (a + 1 / (a + (3/2) / (a + ...))))
    for (int k = a < 1.5 ? 400 : 120; k >= 1; --k) f = a + 0.5 * k / f;
    y = 1.0 - 0.5 * two_over_sqrt_pi * (exp_double(-a2) * (1.0 - lo)) / f;
  }
  return x < 0 ? -y : y;
}

}  // namespace rv::math
