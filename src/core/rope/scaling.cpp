// RoPE context extension with transformers' modeling_rope_utils semantics (linear, dynamic NTK, YaRN, LongRoPE,
// Llama 3.1).
#include "core/rope/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/base/constants.hpp"
#include "core/base/format.hpp"
#include "core/base/names.hpp"
#include "core/rope/rope.hpp"

namespace rv {
namespace {

bool finite_positive(double x) {
  return std::isfinite(x) && x > 0.0;
}
std::string num(double x) {
  return format_number(x);
}

// YaRN's m(scale) = 0.1 * mscale * ln(scale) + 1 (1 when scale <= 1)
double yarn_get_mscale(double scale, double mscale) {
  return scale <= 1.0 ? 1.0 : 0.1 * mscale * std::log(scale) + 1.0;
}

// Dimension (pair index * 2 scale) at which a wavelength completes n rotations over L positions.
double yarn_correction_dim(double n_rot, int d, double base, double L) {
  return (d * std::log(L / (n_rot * 2.0 * kPi))) / (2.0 * std::log(base));
}

double yarn_original_length(const RopeScaling& s) {
  return s.original_max_position_embeddings > 0 ? s.original_max_position_embeddings : s.max_position_embeddings;
}
}  // namespace

namespace {
// Hugging Face's rope_type names; "default" and LongRoPE's legacy "su" read too.
constexpr Named<ScalingType> kScalingNames[] = {
    {ScalingType::None, "none"},        {ScalingType::Linear, "linear"},    {ScalingType::Dynamic, "dynamic"},
    {ScalingType::Yarn, "yarn"},        {ScalingType::Llama3, "llama3"},    {ScalingType::Longrope, "longrope"},
    {ScalingType::None, "default"},     {ScalingType::Longrope, "su"}};
}  // namespace

const char* scaling_name(ScalingType t) {
  return name_of(kScalingNames, t);
}

std::optional<ScalingType> parse_scaling(std::string_view name) {
  return parse_name(kScalingNames, name);
}

RopeScaling llama31_scaling() {
  RopeScaling s;
  s.type = ScalingType::Llama3;
  s.factor = 8.0;
  s.low_freq_factor = 1.0;
  s.high_freq_factor = 4.0;
  s.original_max_position_embeddings = 8192.0;
  return s;
}

std::pair<double, double> yarn_correction_range(int d_head, double base, const RopeScaling& s) {
  const double L = yarn_original_length(s);
  double low = yarn_correction_dim(s.beta_fast, d_head, base, L);  // fast: many rotations -> high freq
  double high = yarn_correction_dim(s.beta_slow, d_head, base, L);
  if (s.truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  return {std::max(low, 0.0), std::min(high, static_cast<double>(d_head - 1))};
}

Expected<ScaledFreq> rope_scaled_inv_freq(int d_head, double base, const RopeScaling& s) {
  if (auto err = check_rope_dims(d_head, base)) return *err;
  if (s.type != ScalingType::None && s.type != ScalingType::Longrope && !finite_positive(s.factor))
    return bad_request("scaling.factor must be a finite number > 0, got " + num(s.factor));
  const int half = d_head / 2;
  ScaledFreq out;
  out.inv_freq = rope_inv_freq(d_head, base);

  switch (s.type) {
    case ScalingType::None:
      break;
    case ScalingType::Linear:
      out.inv_freq /= s.factor;  // positions m -> m / factor (position interpolation)
      break;
    case ScalingType::Dynamic: {
      const double Lmax =
          s.max_position_embeddings > 0 ? s.max_position_embeddings : s.original_max_position_embeddings;
      if (!finite_positive(Lmax)) return bad_request("dynamic scaling needs max_position_embeddings > 0");
      if (!std::isfinite(s.seq_len) || s.seq_len < 0)
        return bad_request("scaling.seq_len must be a finite number >= 0, got " + num(s.seq_len));
      if (d_head < 4) return bad_request("dynamic scaling needs d_head >= 4 (exponent d/(d-2))");
      const double L = std::max(s.seq_len, Lmax);  // below the trained length, nothing changes
      const double new_base =
          base * std::pow((s.factor * L / Lmax) - (s.factor - 1.0), static_cast<double>(d_head) / (d_head - 2));
      if (!(std::isfinite(new_base) && new_base > 1.0))
        return bad_request("dynamic scaling produced an invalid base " + num(new_base));
      out.inv_freq = rope_inv_freq(d_head, new_base);
      break;
    }
    case ScalingType::Yarn: {
      const double L = yarn_original_length(s);
      if (!finite_positive(L))
        return bad_request("yarn scaling needs original_max_position_embeddings (or max_position_embeddings) > 0");
      if (!finite_positive(s.beta_fast) || !finite_positive(s.beta_slow))
        return bad_request("scaling.beta_fast and beta_slow must be finite numbers > 0");
      if (s.attention_factor) {
        if (!std::isfinite(*s.attention_factor) || *s.attention_factor < 0)
          return bad_request("scaling.attention_factor must be a finite number >= 0");
        out.attention_factor = *s.attention_factor;
      } else if (s.mscale && s.mscale_all_dim && *s.mscale != 0.0 && *s.mscale_all_dim != 0.0) {
        out.attention_factor = yarn_get_mscale(s.factor, *s.mscale) / yarn_get_mscale(s.factor, *s.mscale_all_dim);
      } else {
        out.attention_factor = yarn_get_mscale(s.factor, 1.0);  // 0.1 ln(factor) + 1
      }
      auto [low, high] = yarn_correction_range(d_head, base, s);
      if (low == high) high += 0.001;  // avoid 0/0 in the ramp
      for (int i = 0; i < half; ++i) {
        const double pos_freq = std::pow(base, static_cast<double>(2 * i) / d_head);
        const double extrapolation = 1.0 / pos_freq;               // original theta_i
        const double interpolation = 1.0 / (s.factor * pos_freq);  // theta_i / factor
        const double ramp = std::min(1.0, std::max(0.0, (i - low) / (high - low)));
        const double extrapolation_factor = 1.0 - ramp;  // 1 for high frequencies: left alone
        out.inv_freq[i] = interpolation * (1.0 - extrapolation_factor) + extrapolation * extrapolation_factor;
      }
      break;
    }
    case ScalingType::Longrope: {
      const double L = yarn_original_length(s);
      if (!finite_positive(L))
        return bad_request("longrope scaling needs original_max_position_embeddings (or max_position_embeddings) > 0");
      for (const auto* f : {&s.short_factor, &s.long_factor}) {
        const char* name = f == &s.short_factor ? "short_factor" : "long_factor";
        if (static_cast<int>(f->size()) != half)
          return bad_request(std::string("scaling.") + name + " must have d_head/2 = " + std::to_string(half) +
                             " entries, got " + std::to_string(f->size()));
        for (double x : *f)
          if (!finite_positive(x))
            return bad_request(std::string("scaling.") + name + " must contain finite numbers > 0, got " + num(x));
      }
      if (s.attention_factor) {
        if (!std::isfinite(*s.attention_factor) || *s.attention_factor < 0)
          return bad_request("scaling.attention_factor must be a finite number >= 0");
        out.attention_factor = *s.attention_factor;
      } else {
        const double ratio = s.max_position_embeddings > 0 ? s.max_position_embeddings / L : 1.0;
        if (ratio > 1.0 && !(L > 1.0))
          return bad_request("longrope scaling needs original_max_position_embeddings > 1");
        out.attention_factor = ratio <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(ratio) / std::log(L));
      }
      const std::vector<double>& f = s.seq_len > L ? s.long_factor : s.short_factor;
      for (int i = 0; i < half; ++i)
        out.inv_freq[i] = 1.0 / (f[static_cast<std::size_t>(i)] * std::pow(base, static_cast<double>(2 * i) / d_head));
      break;
    }
    case ScalingType::Llama3: {
      const double old_len = s.original_max_position_embeddings;
      if (!finite_positive(old_len)) return bad_request("llama3 scaling needs original_max_position_embeddings > 0");
      if (!finite_positive(s.low_freq_factor) || !finite_positive(s.high_freq_factor) ||
          !(s.high_freq_factor > s.low_freq_factor))
        return bad_request("llama3 scaling needs 0 < low_freq_factor < high_freq_factor");
      const double low_freq_wavelen = old_len / s.low_freq_factor;    // longer than this: divide by factor
      const double high_freq_wavelen = old_len / s.high_freq_factor;  // shorter than this: keep
      for (int i = 0; i < half; ++i) {
        const double f = out.inv_freq[i];
        const double wavelen = 2.0 * kPi / f;
        if (wavelen < high_freq_wavelen) continue;
        if (wavelen > low_freq_wavelen) {
          out.inv_freq[i] = f / s.factor;
          continue;
        }
        const double smooth = (old_len / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
        out.inv_freq[i] = (1.0 - smooth) * f / s.factor + smooth * f;
      }
      break;
    }
  }
  return out;
}

}  // namespace rv
