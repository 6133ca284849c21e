// Low-precision emulation (float32/float16/bfloat16, round-to-nearest-even) and RoPE angle/rotation error vs float64.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string_view>
#include <vector>

namespace rv {

enum class FloatFormat { F64, F32, F16, BF16 };

const char* float_format_name(FloatFormat f);  // "float64", "float32", "float16", "bfloat16"
std::optional<FloatFormat> parse_float_format(std::string_view name);

int mantissa_bits(FloatFormat f);  // explicit stored bits: 52, 23, 10, 7
// x rounded to the nearest representable value (ties to even), with subnormals and overflow to +-inf.
double round_to(FloatFormat f, double x);
inline double round_f32(double x) {
  return round_to(FloatFormat::F32, x);
}
inline double round_f16(double x) {
  return round_to(FloatFormat::F16, x);
}
inline double round_bf16(double x) {
  return round_to(FloatFormat::BF16, x);
}
// Largest N such that every integer 0..N is exact: 2^(mantissa_bits+1) (bf16: 256, f16: 2048, f32: 16777216).
double exact_integer_limit(FloatFormat f);
// The spacing between neighbouring representable values of format f at x > 0 (its ulp there; bf16 at 10000: 64).
double format_spacing(FloatFormat f, double x);
// The smallest integer format f rounds to infinity: its largest finite value plus half an ulp (float16: 65520).
double first_overflowing_integer(FloatFormat f);

enum class AngleRecipe {
  Naive,  // Llama 2 reference: theta in fmt, position in fmt, position*theta rounded to fmt, cos/sin of that
  Ours,   // angle in double, cos/sin in double, rounded once to fmt
};
const char* angle_recipe_name(AngleRecipe r);  // "naive", "ours"

struct PairPrecision {
  double theta = 0;         // float64 inv_freq
  double angle_ref = 0;     // position * theta in float64
  double angle_err = 0;     // |angle used - angle_ref| in rad (naive: wrapped to [-pi, pi])
  double rotation_err = 0;  // |R_fmt x - R_64 x| / |x| for a unit test vector, ops rounded to fmt
};
struct PrecisionReport {
  FloatFormat format = FloatFormat::F32;
  AngleRecipe recipe = AngleRecipe::Ours;
  double position = 0;
  double position_in_format = 0;     // the position after rounding to fmt (naive recipe feeds this)
  std::vector<PairPrecision> pairs;  // [d_head/2]
  double max_angle_err = 0;
  double max_rotation_err = 0;
};
PrecisionReport rope_precision(int d_head, double base, double position, FloatFormat fmt, AngleRecipe recipe);

// Max relative error of a [d_head] rotation computed by the float32 fast path vs float64 (random unit x).
double rope_f32_path_error(int d_head, double base, double position, unsigned seed = 1);

}  // namespace rv
