// Float-format emulation (RNE, subnormals, overflow) and the precision claims: naive float32 vs ours, bf16 positions.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "core/encodings/learned.hpp"
#include "core/rope/precision.hpp"

using namespace rv;

namespace {
double bf16_by_bits(double x) {  // reference: float32 bits, round-to-nearest-even on the top 16 bits
  const float f = static_cast<float>(x);
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);
  u &= 0xFFFF0000u;
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}
}  // namespace

TEST_CASE("float32 emulation equals the hardware cast") {
  NormalRng rng(4);
  for (int i = 0; i < 100000; ++i) {
    const double x = rng.normal() * std::ldexp(1.0, static_cast<int>(rng.next_u64() % 300) - 150);
    CHECK(round_f32(x) == static_cast<double>(static_cast<float>(x)));
  }
  CHECK(std::isinf(round_f32(1e39)));
  CHECK(round_f32(0.1) == static_cast<double>(0.1f));
}

TEST_CASE("bfloat16 emulation equals bit-level RNE of a float32 (for values exact in float32)") {
  NormalRng rng(5);
  for (int i = 0; i < 100000; ++i) {
    const double x = static_cast<float>(rng.normal() * std::ldexp(1.0, static_cast<int>(rng.next_u64() % 60) - 30));
    CHECK(round_bf16(x) == bf16_by_bits(x));
  }
}

TEST_CASE("integer positions: bf16 exact only up to 256, f16 to 2048, f32 to 2^24") {
  CHECK(exact_integer_limit(FloatFormat::BF16) == 256.0);
  CHECK(exact_integer_limit(FloatFormat::F16) == 2048.0);
  CHECK(exact_integer_limit(FloatFormat::F32) == 16777216.0);
  for (int m = 0; m <= 256; ++m) CHECK(round_bf16(m) == m);
  CHECK(round_bf16(257) == 256);  // tie to even
  CHECK(round_bf16(258) == 258);
  CHECK(round_bf16(259) == 260);
  CHECK(round_bf16(1000) == 1000);
  CHECK(round_bf16(1001) == 1000);
  CHECK(round_f16(2049) == 2048);
  CHECK(round_f16(2051) == 2052);
  CHECK(round_f32(16777217) == 16777216);
  CHECK(round_bf16(1e6) == 999424);
}

TEST_CASE("float16 range: max 65504, overflow to inf at the rounding boundary, subnormals down to 2^-24") {
  CHECK(round_f16(65504) == 65504);
  CHECK(round_f16(65519) == 65504);
  CHECK(std::isinf(round_f16(65520)));
  CHECK(round_f16(std::ldexp(1.0, -24)) == std::ldexp(1.0, -24));
  CHECK(round_f16(std::ldexp(1.0, -25)) == 0.0);  // tie to even (0)
  CHECK(round_f16(std::ldexp(3.0, -26)) == std::ldexp(1.0, -24));
  CHECK(round_f16(-1.0 / 3.0) == -0.333251953125);
  CHECK(mantissa_bits(FloatFormat::F16) == 10);
  CHECK(mantissa_bits(FloatFormat::BF16) == 7);
}

TEST_CASE("naive Llama 2 float32 recipe loses ~5e-2 rad at position 1e6; ours stays at float32 rounding") {
  const PrecisionReport naive = rope_precision(128, 10000.0, 1e6, FloatFormat::F32, AngleRecipe::Naive);
  const PrecisionReport ours = rope_precision(128, 10000.0, 1e6, FloatFormat::F32, AngleRecipe::Ours);
  REQUIRE(naive.pairs.size() == 64);
  CHECK(naive.max_angle_err > 1e-2);
  CHECK(naive.max_angle_err < 0.2);
  CHECK(ours.max_angle_err < 2e-7);
  CHECK(ours.max_rotation_err < 3e-7);
  CHECK(ours.pairs[0].angle_ref == 1e6);
  // at small positions the naive recipe is fine too
  CHECK(rope_precision(128, 10000.0, 10, FloatFormat::F32, AngleRecipe::Naive).max_angle_err < 1e-5);
  // float64 "format" is exact up to double rounding
  CHECK(rope_precision(128, 10000.0, 1e6, FloatFormat::F64, AngleRecipe::Naive).max_angle_err < 1e-9);
}

TEST_CASE("bf16 and f16 positions: beyond 256 (bf16) the naive angle is wrong by whole position steps") {
  const PrecisionReport bf = rope_precision(8, 10000.0, 257, FloatFormat::BF16, AngleRecipe::Naive);
  CHECK(bf.position_in_format == 256);
  CHECK(bf.pairs[0].angle_err > 0.5);  // pair 0 rotated by 256 rad instead of 257: 1 rad off
  const PrecisionReport f16 = rope_precision(8, 10000.0, 1000, FloatFormat::F16, AngleRecipe::Ours);
  CHECK(f16.max_rotation_err < 2e-3);  // f16 rounding of cos/sin and of the rotation itself
  CHECK(f16.max_rotation_err > 1e-5);
}

TEST_CASE("the float32 fast path stays near float32 rounding at positions up to 1e6 (and 1e9)") {
  for (double m : {0.0, 1.0, 1e3, 1e6, 1e9}) {
    INFO("position " << m);
    CHECK(rope_f32_path_error(128, 10000.0, m) < 2e-7);
  }
}
