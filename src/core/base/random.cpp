// The portable random stream: splitmix64 uniforms, Marsaglia polar normals, and a log from + - * / alone.
#include "core/base/random.hpp"

#include <cmath>

namespace rv {

std::uint64_t NormalRng::next_u64() {
  // splitmix64 (Steele, Lea, Flood 2014): full-period 64-bit generator, identical on every platform
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double NormalRng::uniform() {
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

double NormalRng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // Marsaglia polar: (u, v) uniform in the unit disc -> two independent N(0, 1); needs only log and sqrt
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double f = std::sqrt(-2.0 * portable_log(s) / s);  // sqrt is exactly rounded by IEEE 754
  spare_ = v * f;
  has_spare_ = true;
  return u * f;
}

double portable_log(double x) {
  if (!(x > 0.0)) return x == 0.0 ? -INFINITY : NAN;
  if (std::isinf(x)) return x;
  int e = 0;
  double m = std::frexp(x, &e);  // exact: x = m * 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    e -= 1;
  }  // m in [sqrt(1/2), sqrt(2))
  // ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), s = (m-1)/(m+1), |s| < 0.172
  const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
  double term = s, sum = 0.0;
  for (int k = 1; k <= 29; k += 2) {
    sum += term / k;
    term *= s2;
  }
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;  // ln 2 = hi + lo
  return (e * ln2_hi + 2.0 * sum) + e * ln2_lo;
}

}  // namespace rv
