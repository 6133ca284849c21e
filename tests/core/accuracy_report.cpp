// Accuracy of the float64 and float32 RoPE paths against an extended-precision (long double) reference, by position.
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/encodings/learned.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/rope_tensor.hpp"

using namespace rv;

namespace {
// Reference: theta, angle, sin/cos and the rotation all in long double (64-bit significand on x86-64).
std::vector<long double> reference(const Eigen::VectorXd& x, double position, double base, Pairing p) {
  const int d = static_cast<int>(x.size());
  std::vector<long double> out(static_cast<std::size_t>(d));
  for (int i = 0; i < d / 2; ++i) {
    const long double theta = 1.0L / std::pow(static_cast<long double>(base), static_cast<long double>(2 * i) / d);
    const long double angle = static_cast<long double>(position) * theta;
    const long double c = std::cos(angle), s = std::sin(angle);
    const auto ab = pair_indices(i, d, p);
    const long double a = x[ab.first], b = x[ab.second];
    out[static_cast<std::size_t>(ab.first)] = a * c - b * s;
    out[static_cast<std::size_t>(ab.second)] = a * s + b * c;
  }
  return out;
}
}  // namespace

int main() {
  const int d = 128, vectors = 64;
  const double base = 10000.0;
  const Eigen::VectorXd theta = rope_inv_freq(d, base);
  NormalRng rng(31337);
  bool ok = true;
  std::printf("RoPE accuracy vs long-double reference, d_head=%d, base=%g, %d random vectors x 2 pairings\n", d, base,
              vectors);
  std::printf("max |y - y_ref| / |x|\n%12s %14s %14s %14s\n", "position", "float64 path", "float32 path",
              "bound f64/f32");
  for (double pos : {0.0, 1e3, 1e6, 1e9}) {
    double err64 = 0, err32 = 0;
    for (int v = 0; v < vectors; ++v) {
      Eigen::VectorXd x(d);
      std::vector<float> xf(static_cast<std::size_t>(d));
      for (int j = 0; j < d; ++j) {
        xf[static_cast<std::size_t>(j)] = static_cast<float>(rng.normal());
        x[j] = xf[static_cast<std::size_t>(j)];
      }
      for (Pairing p : {Pairing::Interleaved, Pairing::HalfSplit}) {
        const std::vector<long double> ref = reference(x, pos, base, p);
        const Eigen::VectorXd y = apply_rope(x, pos, theta, p);
        std::vector<float> yf = xf;
        apply_rope_f32(yf.data(), 1, 1, 1, d, rope_table_f32(std::vector<double>{pos}, theta), p);
        for (int j = 0; j < d; ++j) {
          const long double r = ref[static_cast<std::size_t>(j)];
          err64 = std::max(err64, static_cast<double>(std::fabs(y[j] - r)) / x.norm());
          err32 = std::max(err32, static_cast<double>(std::fabs(yf[static_cast<std::size_t>(j)] - r)) / x.norm());
        }
      }
    }
    // angle error of a double product/theta is ~2.2e-16 * position; float32 adds its own rounding ~1e-7
    const double bound64 = 2e-15 + 4.4e-16 * pos, bound32 = 3e-7 + 4.4e-16 * pos;
    const bool row_ok = err64 <= bound64 && err32 <= bound32;
    ok = ok && row_ok;
    std::printf("%12.0e %14.3e %14.3e %7.1e/%7.1e %s\n", pos, err64, err32, bound64, bound32, row_ok ? "ok" : "FAIL");
  }
  return ok ? 0 : 1;
}
