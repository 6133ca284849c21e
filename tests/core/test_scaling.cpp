// Context-extension formulas (linear, dynamic NTK, YaRN, Llama 3.1) against values derived by hand from the sources.
#include <doctest/doctest.h>

#include <cmath>

#include "core/rope/rope.hpp"
#include "core/rope/scaling.hpp"

using namespace rv;

namespace {
RopeScaling make(ScalingType t, double factor) {
  RopeScaling s;
  s.type = t;
  s.factor = factor;
  return s;
}
}  // namespace

TEST_CASE("names") {
  CHECK(parse_scaling("linear") == ScalingType::Linear);
  CHECK(parse_scaling("dynamic") == ScalingType::Dynamic);
  CHECK(parse_scaling("yarn") == ScalingType::Yarn);
  CHECK(parse_scaling("llama3") == ScalingType::Llama3);
  CHECK(parse_scaling("longrope") == ScalingType::Longrope);
  CHECK(parse_scaling("su") == ScalingType::Longrope);
  CHECK_FALSE(parse_scaling("ntk"));
  CHECK(std::string(scaling_name(ScalingType::Yarn)) == "yarn");
}

TEST_CASE("none and linear: theta_i and theta_i / factor; attention factor 1") {
  auto none = rope_scaled_inv_freq(8, 10000.0, RopeScaling{});
  REQUIRE(none.ok());
  CHECK(none->inv_freq == rope_inv_freq(8, 10000.0));
  auto lin = rope_scaled_inv_freq(8, 10000.0, make(ScalingType::Linear, 8.0));
  REQUIRE(lin.ok());
  CHECK(lin->inv_freq[0] == 0.125);
  CHECK(lin->inv_freq[1] == doctest::Approx(0.0125).epsilon(1e-15));
  CHECK(lin->attention_factor == 1.0);
}

TEST_CASE("dynamic NTK: base' = base * (factor*L/Lmax - (factor-1))^(d/(d-2)); no change while L <= Lmax") {
  RopeScaling s = make(ScalingType::Dynamic, 2.0);
  s.max_position_embeddings = 4096;
  s.seq_len = 8192;
  auto f = rope_scaled_inv_freq(8, 10000.0, s);
  REQUIRE(f.ok());
  const double new_base = 10000.0 * std::pow(3.0, 8.0 / 6.0);  // 2*8192/4096 - 1 = 3
  CHECK(new_base == doctest::Approx(43267.487109222245).epsilon(1e-14));
  CHECK(f->inv_freq[0] == 1.0);
  CHECK(f->inv_freq[1] == doctest::Approx(std::pow(new_base, -0.25)).epsilon(1e-15));
  CHECK(f->inv_freq[3] == doctest::Approx(std::pow(new_base, -0.75)).epsilon(1e-15));
  s.seq_len = 1000;
  CHECK(rope_scaled_inv_freq(8, 10000.0, s)->inv_freq == rope_inv_freq(8, 10000.0));
  s.max_position_embeddings = 0;
  CHECK(rope_scaled_inv_freq(8, 10000.0, s).error().type == "BadRequest");
}

TEST_CASE("YaRN: correction range [20, 46] for d 128, base 1e4, L 4096; high freqs kept, low freqs / factor") {
  RopeScaling s = make(ScalingType::Yarn, 4.0);
  s.original_max_position_embeddings = 4096;
  // dim(n) = d ln(L / (2 pi n)) / (2 ln base): n = 32 -> 20.94, n = 1 -> 45.03
  const double lo = 128 * std::log(4096 / (2 * M_PI * 32)) / (2 * std::log(10000.0));
  const double hi = 128 * std::log(4096 / (2 * M_PI * 1)) / (2 * std::log(10000.0));
  CHECK(lo == doctest::Approx(20.94).epsilon(1e-3));
  CHECK(hi == doctest::Approx(45.03).epsilon(1e-3));
  const auto range = yarn_correction_range(128, 10000.0, s);
  CHECK(range.first == 20.0);
  CHECK(range.second == 46.0);
  auto f = rope_scaled_inv_freq(128, 10000.0, s);
  REQUIRE(f.ok());
  const Eigen::VectorXd theta = rope_inv_freq(128, 10000.0);
  for (int i = 0; i <= 20; ++i) CHECK(f->inv_freq[i] == doctest::Approx(theta[i]).epsilon(1e-15));
  for (int i = 46; i < 64; ++i) CHECK(f->inv_freq[i] == doctest::Approx(theta[i] / 4.0).epsilon(1e-15));
  const double ramp = (33 - 20.0) / (46.0 - 20.0);  // linear ramp in between
  CHECK(f->inv_freq[33] == doctest::Approx(theta[33] / 4.0 * ramp + theta[33] * (1 - ramp)).epsilon(1e-14));
  CHECK(f->attention_factor == doctest::Approx(0.1 * std::log(4.0) + 1.0).epsilon(1e-15));
  s.attention_factor = 0.5;
  CHECK(rope_scaled_inv_freq(128, 10000.0, s)->attention_factor == 0.5);
  s.attention_factor.reset();
  s.mscale = 0.707;
  s.mscale_all_dim = 0.707;  // DeepSeek: equal mscales -> attention factor 1
  CHECK(rope_scaled_inv_freq(128, 10000.0, s)->attention_factor == doctest::Approx(1.0));
  s.mscale.reset();
  s.mscale_all_dim.reset();
  s.truncate = false;
  const auto raw = yarn_correction_range(128, 10000.0, s);
  CHECK(raw.first == doctest::Approx(lo).epsilon(1e-14));
  s.original_max_position_embeddings = 0;
  CHECK_FALSE(rope_scaled_inv_freq(128, 10000.0, s).ok());
  s.max_position_embeddings = 4096;  // transformers falls back to config.max_position_embeddings
  CHECK(rope_scaled_inv_freq(128, 10000.0, s).ok());
}

TEST_CASE("Llama 3.1: wavelen < 2048 kept, > 8192 divided by 8, smooth in between (base 500000, d 128)") {
  auto f = rope_scaled_inv_freq(128, 500000.0, llama31_scaling());
  REQUIRE(f.ok());
  const Eigen::VectorXd theta = rope_inv_freq(128, 500000.0);
  int kept = 0, divided = 0, smooth = 0;
  for (int i = 0; i < 64; ++i) {
    const double wavelen = 2 * M_PI / theta[i];
    if (wavelen < 8192.0 / 4) {
      CHECK(f->inv_freq[i] == theta[i]);
      ++kept;
    } else if (wavelen > 8192.0 / 1) {
      CHECK(f->inv_freq[i] == doctest::Approx(theta[i] / 8).epsilon(1e-15));
      ++divided;
    } else {
      const double sm = (8192.0 / wavelen - 1) / (4 - 1);
      CHECK(f->inv_freq[i] == doctest::Approx((1 - sm) * theta[i] / 8 + sm * theta[i]).epsilon(1e-15));
      CHECK(f->inv_freq[i] < theta[i]);
      CHECK(f->inv_freq[i] > theta[i] / 8);
      ++smooth;
    }
  }
  CHECK(kept == 29);  // 2 pi / theta_i < 2048  <=>  i < 28.3...
  CHECK(smooth == 6);
  CHECK(divided == 29);
  CHECK(f->attention_factor == 1.0);
  RopeScaling bad = llama31_scaling();
  bad.high_freq_factor = 1.0;
  CHECK_FALSE(rope_scaled_inv_freq(128, 500000.0, bad).ok());
}

TEST_CASE("scaling input validation") {
  CHECK(rope_scaled_inv_freq(7, 10000.0, make(ScalingType::Linear, 2.0)).error().type == "BadRequest");
  CHECK_FALSE(rope_scaled_inv_freq(8, 10000.0, make(ScalingType::Linear, 0.0)).ok());
  CHECK_FALSE(rope_scaled_inv_freq(8, 10000.0, make(ScalingType::Linear, NAN)).ok());
  CHECK_FALSE(rope_scaled_inv_freq(8, 1.0, make(ScalingType::Linear, 2.0)).ok());
}
