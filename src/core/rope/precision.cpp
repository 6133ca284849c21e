// Float formats emulated from double (round to nearest even) and the RoPE angle/rotation error they cause.
#include "core/rope/precision.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/names.hpp"
#include "core/base/random.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/rope_tensor.hpp"

namespace rv {
namespace {

struct FormatSpec {
  int p;       // significand bits including the implicit one
  int emin;    // exponent of the smallest normal
  double max;  // largest finite value
};
FormatSpec spec(FloatFormat f) {
  switch (f) {
    case FloatFormat::F32:
      return {24, -126, static_cast<double>(std::numeric_limits<float>::max())};
    case FloatFormat::F16:
      return {11, -14, 65504.0};
    case FloatFormat::BF16:
      return {8, -126, std::ldexp(255.0, 120)};  // (2 - 2^-7) * 2^127
    case FloatFormat::F64:
      break;
  }
  return {53, -1022, std::numeric_limits<double>::max()};
}
double wrap(double angle) {
  return std::remainder(angle, kTwoPi);
}  // to [-pi, pi]
}  // namespace

namespace {
constexpr Named<FloatFormat> kFloatFormatNames[] = {
    {FloatFormat::F64, "float64"},  {FloatFormat::F32, "float32"}, {FloatFormat::F16, "float16"},
    {FloatFormat::BF16, "bfloat16"}, {FloatFormat::F64, "f64"},     {FloatFormat::F64, "double"},
    {FloatFormat::F32, "f32"},      {FloatFormat::F32, "float"},   {FloatFormat::F16, "f16"},
    {FloatFormat::F16, "half"},     {FloatFormat::BF16, "bf16"}};
constexpr Named<AngleRecipe> kAngleRecipeNames[] = {{AngleRecipe::Naive, "naive"}, {AngleRecipe::Ours, "ours"}};
}  // namespace

const char* float_format_name(FloatFormat f) {
  return name_of(kFloatFormatNames, f);
}

std::optional<FloatFormat> parse_float_format(std::string_view name) {
  return parse_name(kFloatFormatNames, name);
}

int mantissa_bits(FloatFormat f) {
  return spec(f).p - 1;
}

double round_to(FloatFormat f, double x) {
  if (f == FloatFormat::F64 || x == 0.0 || !std::isfinite(x)) return x;
  const FormatSpec sp = spec(f);
  int e = 0;
  std::frexp(x, &e);                                          // |x| in [2^(e-1), 2^e)
  const int quantum = std::max(e - 1, sp.emin) - (sp.p - 1);  // ulp exponent (subnormals share emin's)
  const double y = std::ldexp(std::nearbyint(std::ldexp(x, -quantum)), quantum);  // ties to even
  return std::abs(y) > sp.max ? std::copysign(std::numeric_limits<double>::infinity(), x) : y;
}

double exact_integer_limit(FloatFormat f) {
  return std::ldexp(1.0, spec(f).p);
}

double format_spacing(FloatFormat f, double x) {
  const FormatSpec sp = spec(f);
  int e = 0;
  std::frexp(x, &e);  // x in [2^(e-1), 2^e)
  return std::ldexp(1.0, std::max(e - 1, sp.emin) - (sp.p - 1));
}

double first_overflowing_integer(FloatFormat f) {
  const FormatSpec sp = spec(f);
  return sp.max + 0.5 * format_spacing(f, sp.max);
}

const char* angle_recipe_name(AngleRecipe r) {
  return name_of(kAngleRecipeNames, r);
}

PrecisionReport rope_precision(int d_head, double base, double position, FloatFormat fmt, AngleRecipe recipe) {
  PrecisionReport rep;
  rep.format = fmt;
  rep.recipe = recipe;
  rep.position = position;
  rep.position_in_format = round_to(fmt, position);
  const Eigen::VectorXd theta = rope_inv_freq(d_head, base);
  auto R = [fmt](double x) { return round_to(fmt, x); };
  const double xa = R(0.6), xb = R(0.8);  // unit test vector, representable in fmt

  for (int i = 0; i < d_head / 2; ++i) {
    PairPrecision pp;
    pp.theta = theta[i];
    pp.angle_ref = position * theta[i];
    double c, s;
    if (recipe == AngleRecipe::Naive) {
      // Llama 2: freqs = 1 / base ** (arange(0, d, 2).float() / d); outer(t, freqs) in fmt; polar -> cos/sin in fmt
      const double expo = R(static_cast<double>(2 * i) / d_head);
      const double theta_f = R(1.0 / R(std::pow(base, expo)));
      const double angle_f = R(rep.position_in_format * theta_f);
      c = R(std::cos(angle_f));
      s = R(std::sin(angle_f));
    } else {
      c = R(std::cos(pp.angle_ref));  // angle exact in double, one rounding of cos and sin
      s = R(std::sin(pp.angle_ref));
    }
    const double c64 = std::cos(pp.angle_ref), s64 = std::sin(pp.angle_ref);
    pp.angle_err = std::abs(wrap(std::atan2(s, c) - std::atan2(s64, c64)));  // effective angle error
    // The rotation in fmt (every product and sum rounded to it) against float64's
    const RotatedPair<double> got = rotate_pair(xa, xb, c, s, R), exact = rotate_pair(xa, xb, c64, s64);
    pp.rotation_err = std::hypot(got.a - exact.a, got.b - exact.b) / std::hypot(xa, xb);
    rep.max_angle_err = std::max(rep.max_angle_err, pp.angle_err);
    rep.max_rotation_err = std::max(rep.max_rotation_err, pp.rotation_err);
    rep.pairs.push_back(pp);
  }
  return rep;
}

double rope_f32_path_error(int d_head, double base, double position, unsigned seed) {
  const Eigen::VectorXd theta = rope_inv_freq(d_head, base);
  NormalRng rng(seed);
  std::vector<float> x(static_cast<std::size_t>(d_head));
  Eigen::VectorXd xd(d_head);
  for (int j = 0; j < d_head; ++j) {
    x[static_cast<std::size_t>(j)] = static_cast<float>(rng.normal());
    xd[j] = x[static_cast<std::size_t>(j)];
  }
  double worst = 0.0;
  for (Pairing p : {Pairing::Interleaved, Pairing::HalfSplit}) {
    std::vector<float> y = x;
    apply_rope_f32(y.data(), 1, 1, 1, d_head, rope_table_f32(std::vector<double>{position}, theta), p);
    const Eigen::VectorXd ref = apply_rope(xd, position, theta, p);
    for (int j = 0; j < d_head; ++j)
      worst = std::max(worst, std::abs(static_cast<double>(y[static_cast<std::size_t>(j)]) - ref[j]) / xd.norm());
  }
  return worst;
}

}  // namespace rv
