// RoPE context extension with Hugging Face rope_scaling semantics: linear, dynamic NTK, YaRN, LongRoPE, Llama 3.1.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/error.hpp"

namespace rv {

enum class ScalingType { None, Linear, Dynamic, Yarn, Llama3, Longrope };
// How many ScalingTypes there are (Longrope is the last): tables by type static_assert their size against it.
inline constexpr int kScalingTypeCount = int(ScalingType::Longrope) + 1;

const char* scaling_name(ScalingType t);  // "none", "linear", "dynamic", "yarn", "llama3", "longrope"
// also "default" -> None and Phi-3's legacy "su" -> Longrope
std::optional<ScalingType> parse_scaling(std::string_view name);

// Field names and defaults follow transformers' config.rope_scaling; 0 means "not given".
struct RopeScaling {
  ScalingType type = ScalingType::None;
  double factor = 1.0;
  double original_max_position_embeddings = 0;       // yarn: correction range length; llama3: old context (8192)
  double beta_fast = 32, beta_slow = 1;              // yarn
  double low_freq_factor = 1, high_freq_factor = 4;  // llama3
  std::optional<double> attention_factor;            // yarn: default 0.1*ln(factor) + 1
  std::optional<double> mscale, mscale_all_dim;      // yarn (DeepSeek): attention_factor = m(mscale)/m(mscale_all_dim)
  bool truncate = true;                              // yarn: floor/ceil the correction range
  double seq_len = 0;                                // dynamic: current sequence length
  double max_position_embeddings = 0;                // dynamic: trained length; yarn: fallback for original_max...
  std::vector<double> short_factor, long_factor;     // longrope: per-pair divisors, d_head/2 each
};

// Llama 3.1's published values: factor 8, low 1, high 4, original 8192 (use with base 500000).
RopeScaling llama31_scaling();

struct ScaledFreq {
  Eigen::VectorXd inv_freq;       // [d_head/2]
  double attention_factor = 1.0;  // multiplies cos and sin (YaRN's mscale); 1 for the others
};

// None:    theta_i                                     = base^(-2i/d)
// Linear:  theta_i / factor                            (position interpolation)
// Dynamic: base' = base * (factor*L/Lmax - (factor-1))^(d/(d-2)), L = max(seq_len, Lmax)
// Yarn:    theta_i * (ramp_i/factor + (1 - ramp_i)),  ramp over [floor(dim(beta_fast)), ceil(dim(beta_slow))],
//          dim(n) = d*ln(Lorig/(2*pi*n)) / (2*ln(base)); attention 0.1*ln(factor) + 1
// Llama3:  wavelen < Lorig/high: keep; > Lorig/low: /factor; between: smooth interpolation
// Longrope: theta_i / f_i, f = long_factor when seq_len > Lorig else short_factor (factor is not used);
//          attention sqrt(1 + ln(s)/ln(Lorig)), s = max_position_embeddings/Lorig (1 when s <= 1)
// BadRequest on invalid d_head/base or missing/invalid fields.
Expected<ScaledFreq> rope_scaled_inv_freq(int d_head, double base, const RopeScaling& s);

// YaRN's correction range (low, high) in pair indices, as transformers' find_correction_range.
std::pair<double, double> yarn_correction_range(int d_head, double base, const RopeScaling& s);

}  // namespace rv
