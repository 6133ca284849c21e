// Dot product against offset: score(r) = <RoPE(q, n + r), RoPE(k, n)> over r = m - n in
// [-offsets, offsets], at two anchors n and n + 1000 drawn on top of each other (they coincide:
// the score depends only on the offset), with upper bounds on |score(r)| for this q, k: |q||k|
// (Cauchy-Schwarz), the Abel-summation bound and RoFormer's looser form. q and k are random N(0, 1),
// so the curve is noise that does not decay; when the bounds dwarf it the y axis is fitted to the curve
// and the bounds are marked off scale, with their values in a note.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "app/panels/panel_views.hpp"
#include "app/state/model.hpp"
#include "app/state/params.hpp"
#include "app/ui/decimate.hpp"
#include "app/ui/plot_kit.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {

ScoreAt score_at(const App& app, long long r) {
  const Model& m = app.model;
  const std::size_t j = std::size_t(std::clamp<long long>(r + app.params.offsets, 0, (long long)m.curve_a.size() - 1));
  return ScoreAt{m.curve_a[j], m.curve_b[j], m.bound[j], m.roformer_bound[j]};
}

namespace {

// Short legend names; the read-out and the (?) tip give the formulas.
constexpr const char* kAbelLabel = "Abel bound";
constexpr const char* kRoformerLabel = "RoFormer bound";
constexpr const char* kCauchyLabel = "|q||k|";
constexpr const char* kAbelFormula = "Abel bound Σᵢ|hᵢ − hᵢ₊₁|·|Sᵢ₊₁|";
constexpr const char* kRoformerFormula = "RoFormer bound max|Δh|·Σ|S_j|";
constexpr const char* kCauchyFormula = "Cauchy-Schwarz |q||k|";
// The y axis is fitted to the curve when the largest bound is more than this many times the curve's max |score|
// (random q, k of width 128: a bound of thousands over a curve of tens would flatten the curve to a line).
constexpr double kOffScaleRatio = 4.0;
constexpr double kFitPad = 1.15;  // the fitted axis reaches this many times the curve's max |score|

// The y axis the plot uses: fitted to the curve (hi > 0) when the bounds dwarf it, else 0 (fitted to everything).
double fitted_axis(const App& app) {
  const Model& m = app.model;
  if (!app.ui.show_decay || m.curve_absmax <= 0.0) return 0.0;
  return m.bound_max > kOffScaleRatio * m.curve_absmax ? kFitPad * m.curve_absmax : 0.0;
}

void offsets_control(App& app) {
  int r = app.params.offsets;
  ImGui::SetNextItemWidth(110.0f * app.ui.scale);
  if (ImGui::InputInt("± offsets", &r, 64, 1024, ImGuiInputTextFlags_EnterReturnsTrue) && r != app.params.offsets)
    set_param(app.params, "offsets", std::to_string(r), app.ui.notes);
  record_rect(app.ui, "offsets");
  for (int preset : {64, 4096, 65536}) {
    char label[24];
    std::snprintf(label, sizeof label, "±%s", format_count(preset).c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton(label)) set_param(app.params, "offsets", std::to_string(preset), app.ui.notes);
  }
  same_line_if_fits(ImGui::CalcTextSize("bounds (?)").x + 2.0f * ImGui::GetFrameHeight());
  ImGui::Checkbox("bounds", &app.ui.show_decay);
  formula_tip(
      "score(r) = Re Σᵢ hᵢ e^{i r θᵢ}, hᵢ = q_i conj(k_i) per pair (h_{d/2} = 0), S_j = Σ_{k<j} e^{i r θ_k}. "
      "Abel summation (RoFormer 3.4.3): |score(r)| ≤ Σᵢ |hᵢ − hᵢ₊₁| |Sᵢ₊₁| ≤ (maxᵢ |hᵢ₊₁ − hᵢ|) Σ_j |S_j|. "
      "Both hold for this q and k at every offset, drawn as ± envelopes; the second (RoFormer's) is looser, and "
      "|q||k| (Cauchy-Schwarz: rotations keep norms) holds too. They are upper bounds, not typical values. The sums "
      "of |S_j| shrink as |r| grows: the bound decays with distance, the score need not. Here q and k are random "
      "N(0, 1), so the score is noise of about the same size at every distance: no decay to expect; a trained "
      "model's q and k are not random, and any decay of its scores is learned, not given by RoPE.");
}

void readout(const App& app, long long r) {
  const Model& m = app.model;
  const ScoreAt s = score_at(app, r);
  ImGui::Text("offset r = m − n = %s  (the score depends on r only)", format_count(r).c_str());
  ImGui::TextColored(theme::vec(theme::kRope), "score(r) at n = %s: %s", format_count((long long)m.anchor_a).c_str(),
                     format_sig(s.a, 10).c_str());
  ImGui::TextColored(theme::vec(theme::kKey), "score(r) at n = %s: %s", format_count((long long)m.anchor_b).c_str(),
                     format_sig(s.b, 10).c_str());
  ImGui::Text("difference: %s", format_sig(s.a - s.b, 3).c_str());
  if (!app.ui.show_decay) return;
  ImGui::TextColored(theme::vec(theme::kMuted), "%s = %s", kCauchyFormula, format_sig(m.cauchy_schwarz, 6).c_str());
  ImGui::TextColored(theme::vec(theme::kOk), "%s = %s", kAbelFormula, format_sig(s.bound, 6).c_str());
  ImGui::TextColored(theme::vec(theme::kLearned), "%s = %s", kRoformerFormula, format_sig(s.roformer, 6).c_str());
  if (m.curve_a.size() > std::size_t(app.ui.dec_a.columns))
    ImGui::TextDisabled("lines: min/max of each pixel column's %s offsets",
                        format_count((long long)(m.curve_a.size() / std::max(1, app.ui.dec_a.columns))).c_str());
}

void score_plot(App& app, ImVec2 size) {
  const Model& m = app.model;
  Ui& ui = app.ui;
  const double r0 = -app.params.offsets, r1 = app.params.offsets;
  plot::Spec spec;
  spec.x = {"offset r = m − n", plot::Scale::Linear, r0, r1, true};
  spec.y.label = "score(r)";
  const double fit = fitted_axis(app);  // > 0: the axis is fitted to the curve and the bounds may leave it
  if (fit > 0) spec.y.lo = -fit, spec.y.hi = fit;
  if (!plot::begin_plot("score_plot", size, spec)) return;
  const int cols = plot::columns();
  const std::pair<const std::vector<double>*, Decimated*> curves[] = {{&m.curve_a, &ui.dec_a},
                                                                      {&m.curve_b, &ui.dec_b},
                                                                      {&m.bound, &ui.dec_bound},
                                                                      {&m.roformer_bound, &ui.dec_roformer}};
  for (const auto& [y, dec] : curves) decimate(y->data(), y->size(), cols, m.curve_version, *dec);
  if (ui.show_decay) {
    // Off scale: the legend says so (the envelopes are clipped to the axis, entering it only where they decay).
    char roformer[48], abel[48];
    const bool roformer_off = fit > 0 && m.roformer_max > fit, abel_off = fit > 0 && m.bound_max > fit;
    std::snprintf(roformer, sizeof roformer, "%s%s", kRoformerLabel, roformer_off ? " (off scale)" : "");
    std::snprintf(abel, sizeof abel, "%s%s", kAbelLabel, abel_off ? " (off scale)" : "");
    plot::plot_envelope(roformer, ui.dec_roformer, r0, r1, {theme::kLearned & 0xC0FFFFFF, 1.0f, 0, false, false});
    plot::plot_envelope(abel, ui.dec_bound, r0, r1, {theme::kOk, 1.0f, 0, false, fit <= 0});
    if (fit <= 0 || m.cauchy_schwarz <= fit) {  // |q||k| as ± lines, when on the axis
      plot::plot_hline(m.cauchy_schwarz, theme::kMuted, kCauchyLabel);
      plot::plot_hline(-m.cauchy_schwarz, theme::kMuted);
    }
  }
  char a[48], b[48];
  std::snprintf(a, sizeof a, "n = %s", format_count((long long)m.anchor_a).c_str());
  std::snprintf(b, sizeof b, "n = %s (on top)", format_count((long long)m.anchor_b).c_str());
  plot::plot_line(a, ui.dec_a, r0, r1, {theme::kRope, 2.0f});
  plot::plot_line(b, ui.dec_b, r0, r1, {theme::kKey, 1.0f});
  const long long now = app.params.position - app.params.key_position;
  char marker[64];
  std::snprintf(marker, sizeof marker, "now: r = %s, score %s", format_count(now).c_str(),
                format_sig(m.score, 4).c_str());
  plot::plot_vline(double(now), theme::kRope & 0xA0FFFFFF);  // the current offset, when in range
  plot::plot_marker(marker, double(now), m.score, theme::kRope);
  if (m.curve_a.empty()) return plot::end_plot();
  plot::end_plot([&](double x) { readout(app, std::llround(x)); });
}

// What q and k are, what that implies, and the bounds' sizes against the curve's.
void random_note(const App& app) {
  const Model& m = app.model;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled(
      "q and k are random N(0, 1) vectors of width %d (seed %llu), not a trained model's: for random vectors the "
      "score does not shrink with distance (rms %s over these offsets), so no decay is to be expected. The bounds "
      "are upper bounds, not typical values: |score| ≤ |q||k| = %s everywhere, and the Abel bound decays with |r| "
      "(the bound does, not the score).",
      int(m.q.size()), (unsigned long long)app.params.seed, format_sig(m.curve_rms, 3).c_str(),
      format_sig(m.cauchy_schwarz, 3).c_str());
  ImGui::PopTextWrapPos();
}

// Under the plot, when the axis is fitted to the curve: the bounds it leaves out, with their values.
void off_scale_note(const App& app, double fit) {
  const Model& m = app.model;
  const std::string top = format_sig(m.curve_absmax, 3), cs = format_sig(m.cauchy_schwarz, 3);  // short: no heap
  const std::string abel = format_sig(m.bound_max, 3), roformer = format_sig(m.roformer_max, 3);
  const bool cs_off = m.cauchy_schwarz > fit;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(theme::vec(theme::kLearned),
                     "y axis fitted to the curve (max |score| %s); off scale: %s%s%sAbel bound up to %s and RoFormer "
                     "bound up to %s (at r = 0), %s to %s times the curve's max.",
                     top.c_str(), cs_off ? "|q||k| = " : "", cs_off ? cs.c_str() : "", cs_off ? ", " : "", abel.c_str(),
                     roformer.c_str(), format_count(std::llround(m.bound_max / m.curve_absmax)).c_str(),
                     format_count(std::llround(m.roformer_max / m.curve_absmax)).c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace

void show_score_curve(App& app) {
  const Model& m = app.model;
  offsets_control(app);
  random_note(app);
  const double fit = fitted_axis(app);
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  score_plot(app, ImVec2(avail.x, std::max(100.0f, avail.y - (fit > 0 ? 3.4f : 1.2f) * lh)));
  if (fit > 0) off_scale_note(app, fit);
  char within[64];
  std::snprintf(within, sizeof within, "the two anchors' curves coincide within %s",
                format_sig(m.relative_spread, 2).c_str());
  ImGui::TextUnformatted(within);
  formula_tip(
      "score(m, n) = ⟨RoPE(q, m), RoPE(k, n)⟩ = Σᵢ Re[q_i conj(k_i) e^{i(m−n)θᵢ}] depends only on m − n: "
      "the curves at anchors n and n + 1000 lie on top of each other. Drawn with min/max per pixel column; "
      "the bounds with each column's max, so they stay above every point of the curves.");
  const double af = m.attention_factor_model;
  if (af != 1.0) {
    ImGui::TextDisabled("scores × %s: the model's attention factor %s, on cos and sin, enters q·k twice",
                        format_sig(af * af, 6).c_str(), format_sig(af, 6).c_str());
  }
}

std::string describe_score_curve(const App& app) {
  const Model& m = app.model;
  const std::string r = format_count(app.params.offsets);
  return "Dot product panel: the score against the offset m - n from -" + r + " to " + r + " at key positions " +
         format_sig(m.anchor_a) + " and " + format_sig(m.anchor_b) + "; the two curves coincide within " +
         format_sig(m.relative_spread, 3) +
         ", because the score depends only on the offset. q and k are random "
         "N(0, 1): the score is noise (rms " +
         format_sig(m.curve_rms, 3) + ", max |score| " + format_sig(m.curve_absmax, 3) +
         ") with no decay to expect; its upper bounds are |q||k| = " + format_sig(m.cauchy_schwarz, 3) +
         " and the Abel bound, up to " + format_sig(m.bound_max, 3) +
         " at offset 0, which decays with distance (the bound does, not the score).";
}

}  // namespace rv
