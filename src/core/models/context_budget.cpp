// The context budget of a RoPE model (Liu et al. 2023, Men et al. 2024, its rope_scaling, low precision, cost).
#include "core/models/context_budget.hpp"

#include <algorithm>
#include <cmath>

#include "core/rope/rope_analysis.hpp"

namespace rv {
namespace {
constexpr double kBudgetSearchWork = 5e7;  // positions x pairs of the first-negative search: tens of ms at most
}  // namespace

ContextBudget context_budget(const RopeModel& rope, long long hidden) {
  ContextBudget b;
  b.head_dim = rope.head_dim;
  b.rotary_dims = rope.rotary_dims;
  b.context = rope.max_position_embeddings.value_or(0);
  // RopeModel's original length falls back to the context; only a different one is an extension.
  const long long original = rope.original_max_position_embeddings.value_or(b.context);
  b.original = original != b.context ? original : 0;
  b.measured = b.original ? b.original : b.context;
  b.factor = rope.factor;
  b.attention_factor = rope.attention_factor;
  b.critical_dim = rope_critical_dim(rope.rotary_dims, rope.base, double(std::max<long long>(b.measured, 1)));
  const Eigen::VectorXd unscaled = rope_inv_freq(rope.rotary_dims, rope.base);  // [r/2]
  const int pairs = int(std::min(unscaled.size(), rope.inv_freq.size()));
  constexpr double kSame = 1e-12;  // relative: the scaled theta equals theta, or theta / factor
  for (int i = 0; i < pairs; ++i) {
    b.pairs_without_turn += kTwoPi / unscaled[i] > double(b.measured);
    b.scaled_pairs_without_turn += kTwoPi / rope.inv_freq[i] > double(b.context);
    const double ratio = rope.inv_freq[i] / unscaled[i];
    if (std::abs(ratio - 1.0) <= kSame)
      b.kept += 1;
    else if (std::abs(ratio * b.factor - 1.0) <= kSame)
      b.divided += 1;
    else
      b.blended += 1;
  }
  const double work_cap = kBudgetSearchWork / std::max(1, rope.rotary_dims / 2);
  b.search_limit =
      std::max<long long>(1, std::min<long long>(2 * std::max<long long>(b.context, 1), (long long)work_cap));
  b.first_negative_m = rope_first_negative_m(rope.rotary_dims, rope.base, b.search_limit);
  const double at = double(std::max<long long>(b.context, 1));
  b.bf16_spacing = format_spacing(FloatFormat::BF16, at);
  b.fp16_spacing = format_spacing(FloatFormat::F16, at);
  b.bf16_exact = exact_integer_limit(FloatFormat::BF16);
  b.fp16_exact = exact_integer_limit(FloatFormat::F16);
  b.fp16_overflow = first_overflowing_integer(FloatFormat::F16);
  b.learned_parameters = b.context * hidden;
  return b;
}

}  // namespace rv
