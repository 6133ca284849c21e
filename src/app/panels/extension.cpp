// Context extension: Hugging Face rope_scaling (linear position interpolation, dynamic
// NTK, YaRN, Llama 3.1) applied to theta_i by core's rope_scaled_inv_freq. Per pair i: the
// original and the scaled theta_i on a log axis (wavelength on the right), which pairs are left
// alone, divided by the factor or blended, and the attention factor. Local to this panel: the
// other panels keep the model's own theta_i (unscaled, or its config's rope_scaling).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "app/panels/panel_views.hpp"
#include "app/run/run_session.hpp"
#include "app/state/model.hpp"
#include "app/state/params.hpp"
#include "app/ui/plot_kit.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "core/rope/rope.hpp"
#include "imgui.h"

namespace rv {

namespace {
constexpr double kSame = 1e-12;  // relative tolerance for "left alone" / "divided by factor"
constexpr ImU32 kept_tint = IM_COL32(77, 208, 225, 26);
constexpr ImU32 interp_tint = IM_COL32(255, 183, 77, 34);
constexpr ImU32 blend_tint = IM_COL32(186, 140, 255, 40);
}  // namespace

const char* band_name(Band b) {
  switch (b) {
    case Band::Interpolated:
      return "divided by factor";
    case Band::Blended:
      return "partly scaled";
    case Band::Kept:
      break;
  }
  return "left alone";
}

ExtensionPair extension_pair(const App& app, int i) {
  const Model& model = app.model;
  ExtensionPair e;
  e.theta = model.base_inv_freq[i];
  e.scaled = model.scaled_inv_freq[i];
  e.wavelength = rope_wavelength(e.theta);
  e.scaled_wavelength = rope_wavelength(e.scaled);
  const double ratio = e.scaled / e.theta, factor = model.scaling.factor;
  e.interpolated = factor != 1.0 ? (1.0 - ratio) / (1.0 - 1.0 / factor) : 0.0;
  if (std::abs(ratio - 1.0) <= kSame)
    e.band = Band::Kept;
  else if (std::abs(ratio * factor - 1.0) <= kSame)
    e.band = Band::Interpolated;
  else
    e.band = Band::Blended;
  return e;
}

namespace {

// How many pairs fall in each Band (kept, interpolated, blended), as the plot tints them; zeros
// when there are no scaled frequencies (an error).
std::array<int, 3> band_counts(const App& app) {
  std::array<int, 3> count = {0, 0, 0};
  const int pairs = int(app.model.base_inv_freq.size());
  if (app.model.scaled_inv_freq.size() == pairs)
    for (int i = 0; i < pairs; ++i) count[size_t(extension_pair(app, i).band)] += 1;
  return count;
}

// A number box whose new value goes through the key's rules (and the cross checks) like a link's would.
void number_control(App& app, const char* label, TypedKey<double> key, double value, float width, const char* format) {
  double v = value;
  ImGui::SetNextItemWidth(width);
  if (ImGui::InputDouble(label, &v, 0.0, 0.0, format, ImGuiInputTextFlags_EnterReturnsTrue) && v != value) {
    set(app.params, key, v, app.ui.notes);
    enforce_limits(app.params, app.ui.notes);
  }
  record_rect(app.ui, field(key.key).key);
}

void method_controls(App& app) {
  const Params& p = app.params;
  const float unit = ImGui::GetFontSize();
  int current = int(p.scaling);
  ImGui::SetNextItemWidth(unit * 12.0f);
  if (ImGui::Combo("method", &current, "none\0linear (position interpolation)\0dynamic NTK\0YaRN\0Llama 3.1\0") &&
      current != int(p.scaling))
    set(app.params, keys::scaling, ScalingType(current), app.ui.notes);
  record_rect(app.ui, "scaling");
  same_line_if_fits(unit * 8.0f);
  number_control(app, "factor", keys::factor, p.factor, unit * 4.0f, "%.10g");
  same_line_if_fits(unit * 11.0f);
  number_control(app, "original max", keys::original_max, p.original_max, unit * 5.0f, "%.0f");
  if (p.scaling == ScalingType::Llama3) {
    number_control(app, "low_freq_factor", keys::low_freq, p.low_freq, unit * 4.0f, "%.10g");
    same_line_if_fits(unit * 12.0f);
    number_control(app, "high_freq_factor", keys::high_freq, p.high_freq, unit * 4.0f, "%.10g");
    ImGui::SameLine();
  } else if (p.scaling == ScalingType::Yarn) {
    number_control(app, "beta_fast", keys::beta_fast, p.beta_fast, unit * 4.0f, "%.10g");
    same_line_if_fits(unit * 9.0f);
    number_control(app, "beta_slow", keys::beta_slow, p.beta_slow, unit * 4.0f, "%.10g");
    same_line_if_fits(unit * 9.0f);
  }
  if (ImGui::SmallButton("Llama 3.1 preset")) {
    const RopeScaling l = llama31_scaling();  // factor 8, low 1, high 4, original 8192; base 500000
    set(app.params, keys::scaling, l.type, app.ui.notes);
    set(app.params, keys::factor, l.factor, app.ui.notes);
    set(app.params, keys::low_freq, l.low_freq_factor, app.ui.notes);
    set(app.params, keys::high_freq, l.high_freq_factor, app.ui.notes);
    set(app.params, keys::original_max, l.original_max_position_embeddings, app.ui.notes);
    set(app.params, keys::base, 500000, app.ui.notes);
  }
  record_rect(app.ui, "llama31_preset");
  formula_tip(
      "Llama 3.1: rope_scaling = {rope_type: llama3, factor: 8, low_freq_factor: 1, high_freq_factor: 4, "
      "original_max_position_embeddings: 8192} with rope_theta (base) 500000. The preset sets the app's "
      "base, which every panel uses.");
}

// The formula behind each method, by ScalingType.
const char* const kMethodTips[] = {
    "θᵢ = base^(−2i/d_head).",
    "θ'ᵢ = θᵢ / factor  (equivalently m → m / factor).",
    "base' = base · (factor · L / L_orig − (factor − 1))^(d/(d−2)), L = max(m + 1, L_orig); θ'ᵢ = base'^(−2i/d). "
    "Hugging Face's dynamic rope_type.",
    "dim(n) = d · ln(L_orig / (2π n)) / (2 ln base); ramp over pair indices [floor(dim(beta_fast)), "
    "ceil(dim(beta_slow))]; rᵢ = clamp((i − low) / (high − low), 0, 1); θ'ᵢ = θᵢ · (rᵢ / factor + 1 − rᵢ); "
    "attention factor 0.1 · ln(factor) + 1 multiplies cos and sin.",
    "λᵢ = 2π/θᵢ. λᵢ < L_orig/high: θ'ᵢ = θᵢ; λᵢ > L_orig/low: θ'ᵢ = θᵢ/factor; between: "
    "s = (L_orig/λᵢ − low)/(high − low), θ'ᵢ = (1 − s) θᵢ/factor + s θᵢ.",
    "θ'ᵢ = θᵢ / long_factorᵢ for a sequence past L_orig, θᵢ / short_factorᵢ within it; attention factor "
    "sqrt(1 + ln(L_max / L_orig) / ln(L_orig)) multiplies cos and sin.",
};
static_assert(std::size(kMethodTips) == kScalingTypeCount, "one tip per ScalingType");

// "(?)" with a formula tooltip, then the method's one sentence wrapped beside it.
void method_sentence(const App& app) {
  const Params& p = app.params;
  const Model& model = app.model;

  ImGui::TextDisabled("(?)");
  hover_tip(kMethodTips[int(p.scaling)]);
  ImGui::SameLine();
  switch (p.scaling) {
    case ScalingType::None:
      ImGui::TextWrapped(
          "none: θᵢ = base^(−2i/d) as in the lesson; past the trained context the slow pairs reach "
          "angles they never saw in training.");
      break;
    case ScalingType::Linear:
      ImGui::TextWrapped(
          "Linear position interpolation (Chen et al. 2023): every θᵢ is divided by the factor, so "
          "position m looks like m / %s: the trained range is stretched over %s× the context, fast "
          "pairs included.",
          format_sig(p.factor).c_str(), format_sig(p.factor).c_str());
      break;
    case ScalingType::Dynamic:
      if (double(p.position) + 1.0 <= p.original_max)
        ImGui::TextWrapped(
            "Dynamic NTK: the base grows only once the sequence (m + 1 = %s tokens) passes "
            "original_max = %s; below it nothing changes.",
            format_count(p.position + 1).c_str(), format_sig(p.original_max).c_str());
      else
        ImGui::TextWrapped(
            "Dynamic NTK: the sequence (m + 1 = %s tokens) is past original_max = %s, so the "
            "base is raised: pair 0 stays, slower pairs are stretched more, following the "
            "sequence length.",
            format_count(p.position + 1).c_str(), format_sig(p.original_max).c_str());
      break;
    case ScalingType::Yarn:
      ImGui::TextWrapped(
          "YaRN (Peng et al. 2023): pairs turning more than beta_fast = %s times in the original "
          "context are left alone, fewer than beta_slow = %s times are divided by the factor, a "
          "linear ramp blends pairs %.0f..%.0f; cos and sin are scaled by the attention factor.",
          format_sig(p.beta_fast).c_str(), format_sig(p.beta_slow).c_str(), model.yarn_range.first,
          model.yarn_range.second);
      break;
    case ScalingType::Llama3:
      ImGui::TextWrapped(
          "Llama 3.1: pairs with wavelength below original/high = %s positions are left alone, "
          "above original/low = %s are divided by the factor, and the band between is blended "
          "smoothly by wavelength.",
          format_sig(p.original_max / p.high_freq).c_str(), format_sig(p.original_max / p.low_freq).c_str());
      break;
    case ScalingType::Longrope:  // not reachable from a link (params.cpp): its factor lists come from a config
      ImGui::TextWrapped("LongRoPE: each pair's θᵢ is divided by its own factor from the model's config.");
      break;
  }
}

ImU32 tint(Band b) {
  return b == Band::Kept ? kept_tint : b == Band::Interpolated ? interp_tint : blend_tint;
}

// Dashed lines at the wavelengths where the method changes behaviour.
void thresholds(const Params& p) {
  char buf[80];
  if (p.scaling == ScalingType::Llama3) {
    std::snprintf(buf, sizeof buf, "λ = original/high = %s", format_sig(p.original_max / p.high_freq).c_str());
    plot::plot_hline(kTwoPi * p.high_freq / p.original_max, theme::kRope, buf, false);
    std::snprintf(buf, sizeof buf, "λ = original/low = %s", format_sig(p.original_max / p.low_freq).c_str());
    plot::plot_hline(kTwoPi * p.low_freq / p.original_max, theme::kLearned, buf, true);
  } else {
    std::snprintf(buf, sizeof buf, "λ = original_max = %s", format_sig(p.original_max).c_str());
    plot::plot_hline(rope_wavelength(p.original_max), theme::kMuted, buf, false);
  }
}

void readout(const App& app, int i) {
  ImGui::Text("pair i = %d", i);
  if (app.model.scaled_inv_freq.size() != app.model.base_inv_freq.size()) {
    ImGui::Text("θᵢ = %s", format_sig(app.model.base_inv_freq[i], 10).c_str());
    return;
  }
  const ExtensionPair e = extension_pair(app, i);
  ImGui::Text("θᵢ = %s  (λ = %s positions)", format_sig(e.theta, 10).c_str(), format_sig(e.wavelength).c_str());
  ImGui::TextColored(theme::vec(theme::kLearned), "scaled θᵢ = %s  (λ = %s)", format_sig(e.scaled, 10).c_str(),
                     format_sig(e.scaled_wavelength).c_str());
  ImGui::Text("%s; ratio %s, %s of the way to θᵢ / factor", band_name(e.band), format_sig(e.scaled / e.theta).c_str(),
              format_sig(e.interpolated, 3).c_str());
}

void draw_plot(const App& app, float height) {
  const Model& model = app.model;
  const int pairs = int(model.base_inv_freq.size());
  const bool scaled = model.scaled_inv_freq.size() == pairs;
  const double lo = scaled ? std::min(model.base_inv_freq[pairs - 1], model.scaled_inv_freq.minCoeff())
                           : model.base_inv_freq[pairs - 1];
  plot::Spec spec;
  spec.x = {"pair i", plot::Scale::Linear, -0.5, pairs - 0.5, true};
  spec.y = {"θᵢ (log)", plot::Scale::Log10, std::pow(10.0, std::floor(std::log10(lo) - 0.05)), 2.0};
  spec.right = {"λ = 2π/θᵢ", rope_wavelength, rope_wavelength, theme::kKey};
  if (!plot::begin_plot("extension_plot", ImVec2(ImGui::GetContentRegionAvail().x, height), spec)) return;
  for (int i = 0; scaled && i < pairs; ++i) plot::plot_vspan(i - 0.5, i + 0.5, tint(extension_pair(app, i).band));
  thresholds(app.params);
  const float dot = plot::dots_for(pairs);
  plot::plot_line("original θᵢ", model.base_inv_freq.data(), pairs, {theme::kRope, 2.0f, dot});
  if (scaled) plot::plot_line("scaled θᵢ", model.scaled_inv_freq.data(), pairs, {theme::kLearned, 1.5f, dot});
  plot::end_plot([&](double x) { readout(app, int(x)); });
}

// What the other panels use: the loaded model's own θᵢ, after its rope_scaling when its config has one.
const char* other_panels_words(const Model& model) {
  const bool model_scaled = model.real && model.real->info.rope && model.real->info.rope->rope_type != "default";
  return model_scaled ? "local to this panel: the other panels use the model's own scaled θᵢ"
                      : "local to this panel: the other panels use the unscaled θᵢ";
}

// The method as Run it measures it on the loaded weights.
RunRope run_rope_of(ScalingType t) {
  constexpr RunRope kRopes[] = {RunRope::None, RunRope::Linear, RunRope::Dynamic,
                                RunRope::Yarn, RunRope::Llama3, RunRope::LongRope};
  static_assert(std::size(kRopes) == kScalingTypeCount);
  return kRopes[int(t)];
}

// What this method does to a trained model, where Run it measured it; else where to measure it.
void measured_line(const App& app) {
  const std::string& measured = run_measured(app, run_rope_of(app.params.scaling));
  ImGui::PushTextWrapPos(0);
  if (!measured.empty())
    ImGui::TextColored(theme::vec(theme::kOk), "%s", measured.c_str());
  else
    ImGui::TextDisabled(
        "The plot is the formula. What a method does to a trained model's loss is measured in Run it: load a "
        "checkpoint (the demo llama-bytes, trained at 512 positions) and tick this method there.");
  ImGui::PopTextWrapPos();
}

}  // namespace

void show_extension(App& app) {
  const Model& model = app.model;
  method_controls(app);
  method_sentence(app);
  if (!model.scaling_error.empty()) error_box("rope_scaled_inv_freq rejected these settings", model.scaling_error);

  const std::array<int, 3> count = band_counts(app);
  char counts[96], attention[48];
  std::snprintf(counts, sizeof counts, "pairs: %d left alone, %d divided by factor, %d partly scaled", count[0],
                count[1], count[2]);
  std::snprintf(attention, sizeof attention, "attention factor %s", format_sig(model.attention_factor).c_str());
  const char* local = other_panels_words(model);
  // Lines under the plot: the counts, and the attention line wrapping once when narrow.
  const float width = ImGui::GetContentRegionAvail().x, gap = 2.0f * ImGui::GetStyle().ItemSpacing.x;
  const float attention_w = ImGui::CalcTextSize(attention).x + ImGui::CalcTextSize("(?)").x + gap;
  const int lines = 4 + (attention_w + ImGui::CalcTextSize(local).x > width);  // and the measured line's two
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  draw_plot(app, std::max(120.0f, ImGui::GetContentRegionAvail().y - (float(lines) + 0.2f) * lh));
  ImGui::TextWrapped("%s", counts);
  ImGui::TextUnformatted(attention);
  formula_tip(
      "YaRN multiplies cos and sin by this factor (so q·k by its square): 0.1 · ln(factor) + 1. "
      "The other methods leave it at 1.");
  same_line_if_fits(ImGui::CalcTextSize(local).x);
  ImGui::TextDisabled("%s", local);
  measured_line(app);
}

std::string describe_extension(const App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  if (!model.scaling_error.empty()) return "Context extension panel: " + model.scaling_error + ".";
  const int pairs = int(model.base_inv_freq.size());
  const std::array<int, 3> count = band_counts(app);  // the same bands the plot tints
  return std::string("Context extension panel: ") + scaling_name(p.scaling) + " scaling with factor " +
         format_sig(p.factor) + " and original_max " + format_sig(p.original_max) + " leaves " +
         format_count(count[size_t(Band::Kept)]) + " of " + plural(pairs, "pair's", "pairs'") +
         " theta unchanged, divides " + format_count(count[size_t(Band::Interpolated)]) +
         " by the factor and blends the rest; attention factor " + format_sig(model.attention_factor) + "; " +
         other_panels_words(model) + "." +
         (run_measured(app, run_rope_of(p.scaling)).empty() ? "" : " " + run_measured(app, run_rope_of(p.scaling)));
}

}  // namespace rv
