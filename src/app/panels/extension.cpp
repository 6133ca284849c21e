// Panel 8, context extension: Hugging Face rope_scaling (linear position interpolation, dynamic
// NTK, YaRN, Llama 3.1) applied to theta_i by core's rope_scaled_inv_freq. Per pair i: the
// original and the scaled theta_i on a log axis (wavelength on the right), which pairs are left
// alone, divided by the factor or blended, and the attention factor. Local to this panel: the
// other panels keep the lesson's unscaled RoPE.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/format.hpp"
#include "app/model.hpp"
#include "app/panels.hpp"
#include "app/params.hpp"
#include "app/plots.hpp"
#include "app/theme.hpp"
#include "app/widgets.hpp"
#include "imgui.h"

namespace rv {

namespace {
constexpr double same = 1e-12;  // relative tolerance for "left alone" / "divided by factor"
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
  const Model& m = app.model;
  ExtensionPair e;
  e.theta = m.inv_freq[i];
  e.scaled = m.scaled_inv_freq[i];
  e.wavelength = two_pi / e.theta;
  e.scaled_wavelength = two_pi / e.scaled;
  const double ratio = e.scaled / e.theta, factor = m.scaling.factor;
  e.interpolated = factor != 1.0 ? (1.0 - ratio) / (1.0 - 1.0 / factor) : 0.0;
  if (std::abs(ratio - 1.0) <= same)
    e.band = Band::Kept;
  else if (std::abs(ratio * factor - 1.0) <= same)
    e.band = Band::Interpolated;
  else
    e.band = Band::Blended;
  return e;
}

namespace {

// A number box whose new value goes through set_param (and the cross checks) like a link would.
void number_control(App& app, const char* label, const char* key, double value, float width, const char* format) {
  double v = value;
  ImGui::SetNextItemWidth(width);
  if (ImGui::InputDouble(label, &v, 0.0, 0.0, format, ImGuiInputTextFlags_EnterReturnsTrue) && v != value) {
    set_param(app.params, key, format_number(v), app.ui.notes);
    enforce_limits(app.params, app.ui.notes);
  }
  record_rect(app.ui, key);
}

void method_controls(App& app) {
  const Params& p = app.params;
  const float unit = ImGui::GetFontSize();
  int current = int(p.scaling);
  ImGui::SetNextItemWidth(unit * 12.0f);
  if (ImGui::Combo("method", &current, "none\0linear (position interpolation)\0dynamic NTK\0YaRN\0Llama 3.1\0") &&
      current != int(p.scaling))
    set_param(app.params, "scaling", scaling_name(ScalingType(current)), app.ui.notes);
  record_rect(app.ui, "scaling");
  same_line_if_fits(unit * 8.0f);
  number_control(app, "factor", "factor", p.factor, unit * 4.0f, "%g");
  same_line_if_fits(unit * 11.0f);
  number_control(app, "original max", "original_max", p.original_max, unit * 5.0f, "%.0f");
  if (p.scaling == ScalingType::Llama3) {
    number_control(app, "low_freq_factor", "low_freq", p.low_freq, unit * 4.0f, "%g");
    same_line_if_fits(unit * 12.0f);
    number_control(app, "high_freq_factor", "high_freq", p.high_freq, unit * 4.0f, "%g");
    ImGui::SameLine();
  } else if (p.scaling == ScalingType::Yarn) {
    number_control(app, "beta_fast", "beta_fast", p.beta_fast, unit * 4.0f, "%g");
    same_line_if_fits(unit * 9.0f);
    number_control(app, "beta_slow", "beta_slow", p.beta_slow, unit * 4.0f, "%g");
    same_line_if_fits(unit * 9.0f);
  }
  if (ImGui::SmallButton("Llama 3.1 preset")) {
    const RopeScaling l = llama31_scaling();  // factor 8, low 1, high 4, original 8192; base 500000
    set_param(app.params, "scaling", scaling_name(l.type), app.ui.notes);
    set_param(app.params, "factor", format_number(l.factor), app.ui.notes);
    set_param(app.params, "low_freq", format_number(l.low_freq_factor), app.ui.notes);
    set_param(app.params, "high_freq", format_number(l.high_freq_factor), app.ui.notes);
    set_param(app.params, "original_max", format_number(l.original_max_position_embeddings), app.ui.notes);
    set_param(app.params, "base", "500000", app.ui.notes);
  }
  record_rect(app.ui, "llama31_preset");
  formula_tip(
      "Llama 3.1: rope_scaling = {rope_type: llama3, factor: 8, low_freq_factor: 1, high_freq_factor: 4, "
      "original_max_position_embeddings: 8192} with rope_theta (base) 500000. The preset sets the app's "
      "base, which every panel uses.");
}

// "(?)" with a formula tooltip, then the method's one sentence wrapped beside it.
void method_sentence(const App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  static const char* const tips[] = {
      "θᵢ = base^(−2i/d_head).",
      "θ'ᵢ = θᵢ / factor  (equivalently m → m / factor).",
      "base' = base · (factor · L / L_orig − (factor − 1))^(d/(d−2)), L = max(m + 1, L_orig); θ'ᵢ = base'^(−2i/d). "
      "Hugging Face's dynamic rope_type.",
      "dim(n) = d · ln(L_orig / (2π n)) / (2 ln base); ramp over pair indices [floor(dim(beta_fast)), "
      "ceil(dim(beta_slow))]; rᵢ = clamp((i − low) / (high − low), 0, 1); θ'ᵢ = θᵢ · (rᵢ / factor + 1 − rᵢ); "
      "attention factor 0.1 · ln(factor) + 1 multiplies cos and sin.",
      "λᵢ = 2π/θᵢ. λᵢ < L_orig/high: θ'ᵢ = θᵢ; λᵢ > L_orig/low: θ'ᵢ = θᵢ/factor; between: "
      "s = (L_orig/λᵢ − low)/(high − low), θ'ᵢ = (1 − s) θᵢ/factor + s θᵢ.",
  };
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(tips[int(p.scaling)]);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
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
          "position m looks like m / %g: the trained range is stretched over %g× the context, fast "
          "pairs included.",
          p.factor, p.factor);
      break;
    case ScalingType::Dynamic:
      if (double(p.position) + 1.0 <= p.original_max)
        ImGui::TextWrapped(
            "Dynamic NTK: the base grows only once the sequence (m + 1 = %lld tokens) passes "
            "original_max = %.0f; below it nothing changes.",
            p.position + 1, p.original_max);
      else
        ImGui::TextWrapped(
            "Dynamic NTK: the sequence (m + 1 = %lld tokens) is past original_max = %.0f, so the "
            "base is raised: pair 0 stays, slower pairs are stretched more, following the "
            "sequence length.",
            p.position + 1, p.original_max);
      break;
    case ScalingType::Yarn:
      ImGui::TextWrapped(
          "YaRN (Peng et al. 2023): pairs turning more than beta_fast = %g times in the original "
          "context are left alone, fewer than beta_slow = %g times are divided by the factor, a "
          "linear ramp blends pairs %.0f..%.0f; cos and sin are scaled by the attention factor.",
          p.beta_fast, p.beta_slow, m.yarn_range.first, m.yarn_range.second);
      break;
    case ScalingType::Llama3:
      ImGui::TextWrapped(
          "Llama 3.1: pairs with wavelength below original/high = %g positions are left alone, "
          "above original/low = %g are divided by the factor, and the band between is blended "
          "smoothly by wavelength.",
          p.original_max / p.high_freq, p.original_max / p.low_freq);
      break;
  }
}

// Decade ticks on a log10 axis, labelled on the left (theta) and on the right (wavelength).
void log_axes(ImDrawList* dl, const PlotFrame& f) {
  dl->AddRect(f.a, f.b, theme::grid);
  char buf[32];
  const float lh = ImGui::GetTextLineHeight();
  const int step = std::max(1, int(std::ceil((f.y1 - f.y0) / 6.0)));
  for (int e = int(std::ceil(f.y0)); e <= int(std::floor(f.y1)); e += step) {
    const float y = f.sy(double(e));
    dl->AddLine(ImVec2(f.a.x, y), ImVec2(f.b.x, y), theme::grid & 0x60FFFFFF);
    std::snprintf(buf, sizeof buf, "1e%d", e);
    dl->AddText(ImVec2(f.a.x - ImGui::CalcTextSize(buf).x - 4, y - lh * 0.5f), theme::muted, buf);
  }
  // wavelength lambda = 2 pi / theta: log10 lambda = log10(2 pi) - log10 theta
  const double l0 = std::log10(two_pi) - f.y1, l1 = std::log10(two_pi) - f.y0;
  for (int e = int(std::ceil(l0)); e <= int(std::floor(l1)); e += step) {
    const float y = f.sy(std::log10(two_pi) - double(e));
    std::snprintf(buf, sizeof buf, "1e%d", e);
    dl->AddText(ImVec2(f.b.x + 4, y - lh * 0.5f), theme::key, buf);
  }
  const char* label = "left: θᵢ (log), right: λ = 2π/θ";
  dl->AddText(ImVec2(0.5f * (f.a.x + f.b.x) - 0.5f * ImGui::CalcTextSize(label).x, f.b.y + 2), theme::muted, label);
}

// A dashed line at a wavelength, labelled above it (or below, so two close lines keep apart).
void threshold(ImDrawList* dl, const PlotFrame& f, double wavelength, ImU32 colour, const char* label, bool below) {
  const double y = std::log10(two_pi / wavelength);
  if (y < f.y0 || y > f.y1) return;
  const float py = f.sy(y);
  for (float x = f.a.x; x < f.b.x; x += 10.0f) dl->AddLine(ImVec2(x, py), ImVec2(std::min(x + 5, f.b.x), py), colour);
  const ImVec2 ts = ImGui::CalcTextSize(label);
  const ImVec2 at(f.b.x - ts.x - 4, below ? py + 1 : py - ts.y - 1);
  dl->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + ts.x + 2, at.y + ts.y), IM_COL32(20, 22, 26, 200), 2.0f);
  dl->AddText(at, colour, label);
}

void hover_readout(const App& app, const PlotFrame& f) {
  const int pairs = int(app.model.inv_freq.size());
  const int i = std::clamp(int(std::lround(f.data_x(ImGui::GetIO().MousePos.x))), 0, pairs - 1);
  ImGui::BeginTooltip();
  ImGui::Text("pair i = %d", i);
  if (app.model.scaled_inv_freq.size() == pairs) {
    const ExtensionPair e = extension_pair(app, i);
    ImGui::Text("θᵢ = %.10g  (λ = %.6g positions)", e.theta, e.wavelength);
    ImGui::TextColored(theme::vec(theme::learned), "scaled θᵢ = %.10g  (λ = %.6g)", e.scaled, e.scaled_wavelength);
    ImGui::Text("%s; ratio %.6g, %.3g of the way to θᵢ / factor", band_name(e.band), e.scaled / e.theta,
                e.interpolated);
  } else {
    ImGui::Text("θᵢ = %.10g", app.model.inv_freq[i]);
  }
  ImGui::EndTooltip();
}

void draw_plot(const App& app, float height) {
  const Params& p = app.params;
  const Model& m = app.model;
  const int pairs = int(m.inv_freq.size());
  const bool scaled = m.scaled_inv_freq.size() == pairs;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float w = std::max(80.0f, avail.x);
  ImGui::InvisibleButton("extension_plot", ImVec2(w, height));
  const bool hovered = ImGui::IsItemHovered();
  const float lh = ImGui::GetTextLineHeight();
  const float margin_l = ImGui::CalcTextSize("1e-00").x + 8.0f, margin_r = ImGui::CalcTextSize("1e00").x + 10.0f;
  double lo = std::log10(m.inv_freq[pairs - 1]);
  if (scaled) lo = std::min(lo, std::log10(m.scaled_inv_freq.minCoeff()));
  PlotFrame f{ImVec2(p0.x + margin_l, p0.y + 4),
              ImVec2(p0.x + w - margin_r, p0.y + height - lh - 4),
              -0.5,
              double(pairs) - 0.5,
              std::floor(lo - 0.05),
              0.3};

  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(p0, ImVec2(p0.x + w, p0.y + height), true);
  if (scaled) {  // one tinted column per pair, by what the method did to it
    for (int i = 0; i < pairs; ++i) {
      const Band b = extension_pair(app, i).band;
      const ImU32 tint = b == Band::Kept ? kept_tint : b == Band::Interpolated ? interp_tint : blend_tint;
      dl->AddRectFilled(ImVec2(f.sx(i - 0.5), f.a.y), ImVec2(f.sx(i + 0.5), f.b.y), tint);
    }
  }
  log_axes(dl, f);
  char buf[64];
  if (p.scaling == ScalingType::Llama3) {
    std::snprintf(buf, sizeof buf, "λ = original/high = %g", p.original_max / p.high_freq);
    threshold(dl, f, p.original_max / p.high_freq, theme::rope, buf, false);
    std::snprintf(buf, sizeof buf, "λ = original/low = %g", p.original_max / p.low_freq);
    threshold(dl, f, p.original_max / p.low_freq, theme::learned, buf, true);
  } else {
    std::snprintf(buf, sizeof buf, "λ = original_max %.0f", p.original_max);
    threshold(dl, f, p.original_max, theme::muted, buf, false);
  }
  const float dot = pairs > 64 ? 1.5f : 3.0f;
  for (int i = 0; i < pairs; ++i) dl->PathLineTo(ImVec2(f.sx(i), f.sy(std::log10(m.inv_freq[i]))));
  dl->PathStroke(theme::rope, 0, 2.0f);
  for (int i = 0; i < pairs; ++i)
    dl->AddCircleFilled(ImVec2(f.sx(i), f.sy(std::log10(m.inv_freq[i]))), dot, theme::rope);
  if (scaled) {
    for (int i = 0; i < pairs; ++i) dl->PathLineTo(ImVec2(f.sx(i), f.sy(std::log10(m.scaled_inv_freq[i]))));
    dl->PathStroke(theme::learned, 0, 1.5f);
    for (int i = 0; i < pairs; ++i)
      dl->AddCircle(ImVec2(f.sx(i), f.sy(std::log10(m.scaled_inv_freq[i]))), dot + 1.0f, theme::learned);
  }
  dl->AddText(ImVec2(f.a.x, f.b.y + 2), theme::muted, "pair 0");
  std::snprintf(buf, sizeof buf, "pair %d", pairs - 1);
  dl->AddText(ImVec2(f.b.x - ImGui::CalcTextSize(buf).x, f.b.y + 2), theme::muted, buf);
  dl->PopClipRect();
  if (hovered) hover_readout(app, f);
}

}  // namespace

void show_extension(App& app) {
  const Model& m = app.model;
  method_controls(app);
  update_model(app.params, app.model);  // the controls may have changed the scaling this frame
  method_sentence(app);
  if (!m.scaling_error.empty()) error_box("rope_scaled_inv_freq rejected these settings", m.scaling_error);

  const int pairs = int(m.inv_freq.size());
  int count[3] = {0, 0, 0};
  if (m.scaled_inv_freq.size() == pairs)
    for (int i = 0; i < pairs; ++i) count[int(extension_pair(app, i).band)] += 1;
  char counts[96], attention[48];
  std::snprintf(counts, sizeof counts, "%d left alone, %d divided by factor, %d partly scaled", count[0], count[1],
                count[2]);
  std::snprintf(attention, sizeof attention, "attention factor %.6g", m.attention_factor);
  const char* local = "local to this panel: the other panels use the unscaled θᵢ";
  // Lines under the plot: the legend and the attention line, each wrapping once when narrow.
  const float width = ImGui::GetContentRegionAvail().x, gap = 2.0f * ImGui::GetStyle().ItemSpacing.x;
  const float legend_w = ImGui::CalcTextSize("● original θᵢ ○ scaled θᵢ").x + gap;
  const float attention_w = ImGui::CalcTextSize(attention).x + ImGui::CalcTextSize("(?)").x + gap;
  const int lines =
      2 + (legend_w + ImGui::CalcTextSize(counts).x > width) + (attention_w + ImGui::CalcTextSize(local).x > width);
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  draw_plot(app, std::max(80.0f, ImGui::GetContentRegionAvail().y - (float(lines) + 0.2f) * lh));

  ImGui::TextColored(theme::vec(theme::rope), "● original θᵢ");
  ImGui::SameLine();
  ImGui::TextColored(theme::vec(theme::learned), "○ scaled θᵢ");
  same_line_if_fits(ImGui::CalcTextSize(counts).x);
  ImGui::TextUnformatted(counts);
  ImGui::TextUnformatted(attention);
  formula_tip(
      "YaRN multiplies cos and sin by this factor (so q·k by its square): 0.1 · ln(factor) + 1. "
      "The other methods leave it at 1.");
  same_line_if_fits(ImGui::CalcTextSize(local).x);
  ImGui::TextDisabled("%s", local);
}

std::string describe_extension(const App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  if (!m.scaling_error.empty()) return "Context extension panel: " + m.scaling_error + ".";
  const int pairs = int(m.inv_freq.size());
  int kept = 0, divided = 0;
  for (int i = 0; i < pairs; ++i) {
    const double ratio = m.scaled_inv_freq[i] / m.inv_freq[i];
    kept += std::abs(ratio - 1.0) <= 1e-12;
    divided += std::abs(ratio * p.factor - 1.0) <= 1e-12;
  }
  return std::string("Context extension panel: ") + scaling_name(p.scaling) + " scaling with factor " +
         format_sig(p.factor) + " and original_max " + format_sig(p.original_max) + " leaves " + format_count(kept) +
         " of " + plural(pairs, "pair's", "pairs'") + " theta unchanged, divides " + format_count(divided) +
         " by the factor and blends the rest; attention factor " + format_sig(m.attention_factor) +
         "; the other panels use unscaled RoPE.";
}

}  // namespace rv
