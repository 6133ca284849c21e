// Dot product against offset: score(r) = <RoPE(q, n + r), RoPE(k, n)> over r = m - n in
// [-offsets, offsets], at two anchors n and n + 1000 drawn on top of each other (they coincide:
// the score depends only on the offset), between true bounds on |score(r)| for this q, k.
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
constexpr const char* kAbelLabel = "true bound";
constexpr const char* kRoformerLabel = "RoFormer bound";
constexpr const char* kAbelFormula = "true bound Σᵢ|hᵢ − hᵢ₊₁|·|Sᵢ₊₁|";
constexpr const char* kRoformerFormula = "RoFormer bound max|Δh|·Σ|S_j|";

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
      "Both are true bounds for this q and k at every offset, drawn as ± envelopes; the second (RoFormer's) "
      "is looser. The sums of |S_j| shrink as |r| grows: distant tokens can interact less strongly.");
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
  if (!plot::begin_plot("score_plot", size, spec)) return;
  const int cols = plot::columns();
  const std::pair<const std::vector<double>*, Decimated*> curves[] = {{&m.curve_a, &ui.dec_a},
                                                                      {&m.curve_b, &ui.dec_b},
                                                                      {&m.bound, &ui.dec_bound},
                                                                      {&m.roformer_bound, &ui.dec_roformer}};
  for (const auto& [y, dec] : curves) decimate(y->data(), y->size(), cols, m.curve_version, *dec);
  if (ui.show_decay) {
    plot::plot_envelope(kRoformerLabel, ui.dec_roformer, r0, r1, {theme::kLearned & 0xC0FFFFFF, 1.0f, 0, false, false});
    plot::plot_envelope(kAbelLabel, ui.dec_bound, r0, r1, {theme::kOk, 1.0f});
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

}  // namespace

void show_score_curve(App& app) {
  const Model& m = app.model;
  offsets_control(app);
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  score_plot(app, ImVec2(avail.x, std::max(100.0f, avail.y - 1.2f * lh)));
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
         format_sig(m.relative_spread, 3) + ", because the score depends only on the offset.";
}

}  // namespace rv
