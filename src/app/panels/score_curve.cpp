// Panel 2, dot product against offset: <RoPE(q, n + r), RoPE(k, n)> over r = m - n in
// [-offsets, offsets], at two anchors n and n + 1000 drawn on top of each other (they coincide:
// the score depends only on the offset), with RoFormer's decay bound as an envelope.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/format.hpp"
#include "app/model.hpp"
#include "app/panels.hpp"
#include "app/params.hpp"
#include "app/plots.hpp"
#include "app/theme.hpp"
#include "app/widgets.hpp"
#include "imgui.h"

namespace rv {

double decay_envelope_scale(const Model& m) {
  if (m.decay.empty() || m.decay[0] <= 0 || m.curve_a.empty()) return 0.0;
  double peak = 0.0;
  for (double s : m.curve_a) peak = std::max(peak, std::abs(s));
  return peak / m.decay[0];
}

namespace {

void offsets_control(App& app) {
  int r = app.params.offsets;
  ImGui::SetNextItemWidth(110.0f * app.ui.scale);
  if (ImGui::InputInt("± offsets", &r, 64, 1024, ImGuiInputTextFlags_EnterReturnsTrue) && r != app.params.offsets)
    set_param(app.params, "offsets", std::to_string(r), app.ui.notes);
  record_rect(app.ui, "offsets");
  ImGui::SameLine();
  for (int preset : {64, 4096, 65536}) {
    char label[16];
    std::snprintf(label, sizeof label, "±%d", preset);
    if (ImGui::SmallButton(label)) set_param(app.params, "offsets", std::to_string(preset), app.ui.notes);
    ImGui::SameLine();
  }
  ImGui::Checkbox("decay bound", &app.ui.show_decay);
  formula_tip(
      "RoFormer 3.4.3: |score(r)| ≤ (max_i |h_{i+1} − h_i|) · Σ_j |S_j|, S_j = Σ_{k<j} e^{i r θ_k}, "
      "h_i = q_i conj(k_i) per pair. Drawn: the relative bound (1/(d/2)) Σ_j |S_j| at |r|, scaled so it "
      "equals max |score| at r = 0. "
      "It decays as |r| grows: distant tokens can interact less strongly.");
}

// A short line in a curve's colour, as a legend key, followed on the same line by its label.
void swatch(ImU32 colour, float thickness) {
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetFontSize() * 1.5f, y = p.y + ImGui::GetTextLineHeight() * 0.5f;
  ImGui::GetWindowDrawList()->AddLine(ImVec2(p.x, y), ImVec2(p.x + w, y), colour, thickness);
  ImGui::Dummy(ImVec2(w, ImGui::GetTextLineHeight()));
  ImGui::SameLine();
}

void hover_readout(const App& app, const PlotFrame& f) {
  const Model& m = app.model;
  const long long lo = -app.params.offsets;
  const long long j =
      std::clamp<long long>(std::llround(f.data_x(ImGui::GetIO().MousePos.x)) - lo, 0, (long long)m.curve_a.size() - 1);
  const long long r = lo + j;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddLine(ImVec2(f.sx(double(r)), f.a.y), ImVec2(f.sx(double(r)), f.b.y), theme::muted & 0x80FFFFFF);
  ImGui::BeginTooltip();
  ImGui::Text("offset r = m − n = %lld", r);
  ImGui::TextColored(theme::vec(theme::rope), "⟨RoPE(q, %.0f), RoPE(k, %.0f)⟩ = %.17g", m.anchor_a + double(r),
                     m.anchor_a, m.curve_a[size_t(j)]);
  ImGui::TextColored(theme::vec(theme::key), "⟨RoPE(q, %.0f), RoPE(k, %.0f)⟩ = %.17g", m.anchor_b + double(r),
                     m.anchor_b, m.curve_b[size_t(j)]);
  ImGui::Text("difference: %.3g", m.curve_a[size_t(j)] - m.curve_b[size_t(j)]);
  if (!m.decay.empty()) {
    // nearest sample of the bound
    const double ar = std::abs(double(r));
    const size_t s = size_t(std::lround(ar / std::max(1.0, m.decay_r.back()) * double(m.decay.size() - 1)));
    ImGui::TextDisabled("decay bound at |r| = %.0f: %.6g", m.decay_r[std::min(s, m.decay.size() - 1)],
                        m.decay[std::min(s, m.decay.size() - 1)]);
  }
  ImGui::EndTooltip();
}

}  // namespace

void show_score_curve(App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  offsets_control(app);

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float h = std::max(80.0f, avail.y - 3.3f * lh);  // legend may wrap to two lines
  ImGui::InvisibleButton("score_plot", ImVec2(std::max(80.0f, avail.x), h));
  const bool hovered = ImGui::IsItemHovered();
  const float margin_l = ImGui::CalcTextSize("-0.0000").x + 8.0f;
  PlotFrame f{ImVec2(p0.x + margin_l, p0.y + 4),
              ImVec2(p0.x + std::max(80.0f, avail.x) - 6, p0.y + h - lh),
              double(-p.offsets),
              double(p.offsets),
              0,
              0};
  const int columns = std::max(2, int(f.b.x - f.a.x));
  decimate(m.curve_a.data(), m.curve_a.size(), columns, m.curve_version, app.ui.dec_a);
  decimate(m.curve_b.data(), m.curve_b.size(), columns, m.curve_version, app.ui.dec_b);
  float lo = 0, hi = 0;
  for (int c = 0; c < app.ui.dec_a.columns; ++c) {
    lo = std::min({lo, app.ui.dec_a.lo[c], app.ui.dec_b.lo[c]});
    hi = std::max({hi, app.ui.dec_a.hi[c], app.ui.dec_b.hi[c]});
  }
  const double env = decay_envelope_scale(m);
  if (app.ui.show_decay) {
    lo = std::min(lo, float(-env * m.decay[0]));
    hi = std::max(hi, float(env * m.decay[0]));
  }
  const float pad = std::max(1e-6f, (hi - lo) * 0.06f);
  f.y0 = lo - pad;
  f.y1 = hi + pad;

  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(p0, ImVec2(p0.x + avail.x, p0.y + h), true);
  draw_axes(dl, f, "offset m − n", "score");
  if (app.ui.show_decay && env > 0) {
    for (int sign : {1, -1}) {
      for (int side : {1, -1}) {
        for (size_t j = 0; j < m.decay.size(); ++j)
          dl->PathLineTo(ImVec2(f.sx(side * m.decay_r[j]), f.sy(sign * env * m.decay[j])));
        dl->PathStroke(theme::muted & 0x90FFFFFF, 0, 1.0f);
      }
    }
  }
  draw_decimated(dl, f, app.ui.dec_a, theme::rope, 2.5f);
  draw_decimated(dl, f, app.ui.dec_b, theme::key, 1.0f);
  // The current offset m - n and its score.
  const long long r = p.position - p.key_position;
  if (r >= -p.offsets && r <= p.offsets) {
    const float x = f.sx(double(r));
    dl->AddLine(ImVec2(x, f.a.y), ImVec2(x, f.b.y), theme::rope & 0x80FFFFFF, 1.0f);
    dl->AddCircleFilled(ImVec2(x, f.sy(m.score)), 5.0f, theme::rope);
    dl->AddCircle(ImVec2(x, f.sy(m.score)), 7.0f, IM_COL32_WHITE);
  } else {
    const float x = r < 0 ? f.a.x + 4 : f.b.x - 4;
    dl->AddTriangleFilled(ImVec2(x, f.a.y + 6), ImVec2(x + (r < 0 ? 10.0f : -10.0f), f.a.y + 1),
                          ImVec2(x + (r < 0 ? 10.0f : -10.0f), f.a.y + 11), theme::rope);
  }
  dl->PopClipRect();
  if (hovered && !m.curve_a.empty()) hover_readout(app, f);

  swatch(theme::rope, 3.0f);
  ImGui::TextColored(theme::vec(theme::rope), "anchor n = %.0f", m.anchor_a);
  ImGui::SameLine();
  swatch(theme::key, 1.5f);
  ImGui::TextColored(theme::vec(theme::key), "anchor n + %.0f (drawn on top)", anchor_shift);
  char within[48];
  std::snprintf(within, sizeof within, "coincide within %.2g", m.relative_spread);
  same_line_if_fits(ImGui::CalcTextSize(within).x + 30.0f);
  ImGui::TextUnformatted(within);
  formula_tip(
      "score(m, n) = ⟨RoPE(q, m), RoPE(k, n)⟩ = Σᵢ Re[q_i conj(k_i) e^{i(m−n)θᵢ}] depends only on m − n: "
      "the curves at anchors n and n + 1000 lie on top of each other. Drawn with min/max per pixel column.");
  ImGui::Text("now: m − n = %lld, score = %.6g", r, m.score);
}

std::string describe_score_curve(const App& app) {
  const Model& m = app.model;
  const std::string r = format_count(app.params.offsets);
  return "Dot product panel: the score against the offset m - n from -" + r + " to " + r + " at key positions " +
         format_sig(m.anchor_a) + " and " + format_sig(m.anchor_b) + "; the two curves coincide within " +
         format_sig(m.relative_spread, 3) + ", because the score depends only on the offset.";
}

}  // namespace rv
