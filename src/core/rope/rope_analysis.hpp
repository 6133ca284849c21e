// Two one-number summaries of a RoPE configuration: the critical dimension and the first negative cosine sum.
#pragma once

#include <optional>

#include "core/base/error.hpp"

namespace rv {

// Liu et al. 2023: 2 * ceil((d_head/2) * ln(context / (2 pi)) / ln(base)), clamped to [0, d_head]. The number of
// dimensions whose wavelength fits in the context: pairs beyond it never see a full period during training.
int rope_critical_dim(int d_head, double base, double context);

// Men et al. 2024: the smallest integer m >= 1 with sum_{i < d_head/2} cos(m * theta_i) < 0, searched up to limit;
// nullopt if none. Exact cosines decide every m whose sum is near zero (a resynchronised rotation recurrence finds
// the candidates), so the answer equals the direct evaluation's.
std::optional<long long> rope_first_negative_m(int d_head, double base, long long limit);

// The search's cost bound: limit * d_head/2 must be at most this.
constexpr double kMaxAnalyzeWork = 2.6e9;  // d_head 512 with the default limit 1e7

}  // namespace rv
