// The context budget (core/models/context_budget.hpp) and the low-precision spacing it reports.
#include <doctest/doctest.h>

#include <cmath>

#include "core/models/context_budget.hpp"
#include "core/models/presets.hpp"
#include "core/rope/rope_analysis.hpp"

using namespace rv;

TEST_CASE("format_spacing and first_overflowing_integer: bf16 spacing 64 between 8192 and 16384, fp16 inf at 65520") {
  CHECK(format_spacing(FloatFormat::BF16, 8192.0) == 64.0);
  CHECK(format_spacing(FloatFormat::BF16, 16383.0) == 64.0);
  CHECK(format_spacing(FloatFormat::BF16, 16384.0) == 128.0);
  CHECK(format_spacing(FloatFormat::F16, 2048.0) == 2.0);
  CHECK(format_spacing(FloatFormat::F32, 1.0) == std::ldexp(1.0, -23));
  for (double x : {300.0, 8200.0, 100000.0})  // neighbours are exactly one spacing apart
    CHECK(round_to(FloatFormat::BF16, x + format_spacing(FloatFormat::BF16, x)) != round_to(FloatFormat::BF16, x));
  CHECK(first_overflowing_integer(FloatFormat::F16) == 65520.0);
  CHECK(std::isinf(round_to(FloatFormat::F16, 65520.0)));
  CHECK(round_to(FloatFormat::F16, 65519.0) == 65504.0);
}

TEST_CASE("context_budget of Llama 2 at 4096: the issue's 92 of 128 dims and the contract's first negative 1707") {
  RopeModel rope;
  rope.head_dim = rope.rotary_dims = 128;
  rope.base = 10000.0;
  rope.inv_freq = rope_inv_freq(128, 10000.0);
  rope.max_position_embeddings = 4096;
  const ContextBudget b = context_budget(rope, 4096);
  CHECK(b.critical_dim == 92);
  CHECK(b.first_negative_m == 1707);
  CHECK(b.original == 0);  // no extension: the figures are measured against the context itself
  CHECK(b.measured == 4096);
  CHECK(b.scaled_pairs_without_turn == b.pairs_without_turn);
  CHECK(b.kept == 64);
  CHECK(b.divided + b.blended == 0);
  // pairs without a turn: wavelength > 4096, counted directly
  int longer = 0;
  for (int i = 0; i < 64; ++i) longer += kTwoPi * std::pow(10000.0, 2.0 * i / 128) > 4096.0;
  CHECK(b.pairs_without_turn == longer);
  CHECK(b.pairs_without_turn == 64 - b.critical_dim / 2);
  CHECK(b.learned_parameters == 4096LL * 4096);
  CHECK(b.bf16_spacing == 32.0);  // at 4096
  CHECK(b.fp16_overflow == 65520.0);
}

TEST_CASE("context_budget of Llama 3.1 8B: kept / blended / divided pairs by the llama3 wavelength bands") {
  auto info = preset_model("llama-3.1-8b");
  REQUIRE(info.ok());
  const ContextBudget b = context_budget(*info->rope, 4096);
  CHECK(b.factor == 8.0);
  // llama3 keeps wavelengths below original / high_freq_factor = 2048, divides those above original /
  // low_freq_factor = 8192, blends between (transformers' _compute_llama3_parameters)
  int kept = 0, divided = 0;
  for (int i = 0; i < 64; ++i) {
    const double wavelength = kTwoPi * std::pow(500000.0, 2.0 * i / 128);
    kept += wavelength < 2048.0;
    divided += wavelength > 8192.0;
  }
  CHECK(b.kept == kept);
  CHECK(b.divided == divided);
  CHECK(b.blended == 64 - kept - divided);
  CHECK(b.context == 131072);
  CHECK(b.original == 8192);
  CHECK(b.measured == 8192);
  // Both turn figures from the same (unscaled) frequencies at 8,192: 70 dims = 35 pairs fit, the other 29 do not.
  CHECK(b.critical_dim == rope_critical_dim(128, 500000.0, 8192.0));
  CHECK(b.critical_dim == 70);
  CHECK(b.pairs_without_turn == 29);
  CHECK(b.critical_dim / 2 + b.pairs_without_turn == 64);
  // After llama3 scaling, against the extended context: the divided pairs' wavelengths grew 8x.
  int scaled_longer = 0;
  for (int i = 0; i < 64; ++i) scaled_longer += kTwoPi / info->rope->inv_freq[i] > 131072.0;
  CHECK(b.scaled_pairs_without_turn == scaled_longer);
  CHECK(b.first_negative_m == rope_first_negative_m(128, 500000.0, 2 * 131072));
}

TEST_CASE("context_budget: the turn figures add up at every preset and length (both from the unscaled theta)") {
  for (const Preset& p : presets()) {
    auto info = preset_model(p.name);
    REQUIRE(info.ok());
    if (!info->rope) continue;
    const ContextBudget b = context_budget(*info->rope, 4096);
    INFO(p.name);
    CHECK(b.measured == (b.original ? b.original : b.context));
    CHECK(b.critical_dim / 2 + b.pairs_without_turn == b.rotary_dims / 2);
  }
}

TEST_CASE("context_budget of Phi-3.5: LongRoPE's factor is 131072 / 4096 = 32, its attention factor from it") {
  auto info = preset_model("phi-3.5-mini");
  REQUIRE(info.ok());
  const ContextBudget b = context_budget(*info->rope, 3072);
  CHECK(b.factor == 32.0);
  CHECK(b.original == 4096);
  CHECK(b.attention_factor == doctest::Approx(std::sqrt(1.0 + std::log(32.0) / std::log(4096.0))).epsilon(1e-12));
  CHECK(b.attention_factor == doctest::Approx(1.19024).epsilon(1e-5));
}

TEST_CASE("model_width and the rope factor: hidden_size when given, a learned table's own width, 1 without scaling") {
  auto gemma = preset_config(*find_preset("gemma-2-9b"));
  REQUIRE(gemma.ok());
  auto gemma_info = derive_model(*gemma);
  REQUIRE(gemma_info.ok());
  CHECK(model_width(*gemma, *gemma_info) == 3584);  // not 16 heads x 256
  CHECK(gemma_info->rope->factor == 1.0);
  auto gpt2 = preset_config(*find_preset("gpt2"));
  CHECK(model_width(*gpt2, *derive_model(*gpt2)) == 768);
  CHECK(preset_model("llama-3.2-1b")->rope->factor == 32.0);
}
