// What a RoPE model's numbers mean for its context: turns inside its length before extension, the cosine sum's first
// negative position, what its rope_scaling did to each pair, where low-precision positions stop being exact, cost.
#pragma once

#include <optional>

#include "core/models/hf_config.hpp"
#include "core/rope/precision.hpp"

namespace rv {

struct ContextBudget {
  int head_dim = 0, rotary_dims = 0;
  long long context = 0;   // max_position_embeddings: the length the config says it serves
  long long original = 0;  // original_max_position_embeddings: the length before context extension; 0 when none
  long long measured = 0;  // the length the turn figures are measured against: original, else context
  // Both from the unscaled theta_i = base^(-2i/r) at `measured` (the frequencies the model was pre-trained with
  // there), so they add up: critical_dim / 2 + pairs_without_turn = r / 2.
  // Liu et al. 2023: 2 * ceil((r/2) * ln(measured / (2 pi)) / ln(base)), in [0, r]: the dims whose period fits.
  int critical_dim = 0;
  // Pairs whose wavelength 2 pi / theta_i exceeds `measured`: they never complete a turn inside it.
  int pairs_without_turn = 0;
  // Pairs whose wavelength after rope_scaling (the model's theta) still exceeds the context; equals
  // pairs_without_turn when the config has no scaling and no original length.
  int scaled_pairs_without_turn = 0;
  // Men et al. 2024: the first m >= 1 with sum_i cos(m theta_i) < 0 over the rotated pairs (theta from base),
  // searched up to search_limit; nullopt when it stays >= 0 that far.
  std::optional<long long> first_negative_m;
  long long search_limit = 0;
  // Pairs the rope_scaling left alone (theta kept), divided by its factor, or changed by another amount (blended).
  int kept = 0, divided = 0, blended = 0;
  double factor = 1.0, attention_factor = 1.0;
  // Positions as numbers: the spacing between representable values at the context, the last integer every
  // integer below is exact to, and float16's first integer that rounds to infinity.
  double bf16_spacing = 0, fp16_spacing = 0;
  double bf16_exact = 0, fp16_exact = 0;
  double fp16_overflow = 0;
  long long rope_parameters = 0;     // RoPE learns nothing
  long long learned_parameters = 0;  // a learned table for the context: context x hidden
};

// rope's scaled inv_freq against base^(-2i/rotary_dims), with its factor; hidden is the width a learned table would
// have. The first-negative search runs to twice the context, capped so its work (positions x pairs) stays at 5e7.
ContextBudget context_budget(const RopeModel& rope, long long hidden);

}  // namespace rv
