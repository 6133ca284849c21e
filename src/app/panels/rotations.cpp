// Rotations per frequency: for each pair i, the unit circle with q's pair before (faint)
// and after RoPE at m (solid), k's pair rotated at n, and the arc m * theta_i mod 2 pi. Pairs whose
// wavelength 2 pi / theta_i exceeds max_position are marked: they never finish a turn inside the
// table. V sits beside them, unrotated.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/panels/panel_views.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "core/rope/rope.hpp"
#include "imgui.h"

namespace rv {
namespace {

ImVec2 on_circle(ImVec2 c, float r, double phi) {
  return ImVec2(c.x + r * float(std::cos(phi)), c.y - r * float(std::sin(phi)));
}

void draw_pair_cell(const App& app, int i, ImVec2 p0, float size) {
  const PairView v = pair_view(app, i);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float lh = ImGui::GetTextLineHeight();
  const float r = std::max(8.0f, std::min(size * 0.5f - 6.0f, (size - 2.2f * lh) * 0.5f - 4.0f));
  const ImVec2 c(p0.x + size * 0.5f, p0.y + 4.0f + r);
  if (v.beyond_table && !v.passes)
    dl->AddRect(p0, ImVec2(p0.x + size - 4, p0.y + size - 4), theme::kLearned & 0x90FFFFFF, 4.0f);
  dl->AddCircle(c, r, theme::kGrid, 48, 1.0f);
  dl->AddLine(ImVec2(c.x - r, c.y), ImVec2(c.x + r, c.y), theme::kGrid & 0x60FFFFFF);

  const double q_phi = std::atan2(v.q.y(), v.q.x());
  const double k_phi = std::atan2(v.k_rot.y(), v.k_rot.x());
  // Arc from q's direction by m theta_i (mod 2 pi), counter-clockwise (screen y points down).
  const int segments = std::max(4, int(24 * v.angle_mod / kTwoPi) + 2);
  dl->PathArcTo(c, r * 0.42f, float(-q_phi), float(-(q_phi + v.angle_mod)), segments);
  dl->PathStroke(theme::kRope, 0, 2.0f);
  dl->AddLine(c, on_circle(c, r, q_phi), theme::kRope & 0x70FFFFFF, 1.5f);
  dl->AddLine(c, on_circle(c, r, k_phi), theme::kKey, 1.5f);
  dl->AddCircleFilled(on_circle(c, r, k_phi), 3.0f, theme::kKey);
  dl->AddLine(c, on_circle(c, r, q_phi + v.angle_mod), theme::kRope, 2.5f);
  dl->AddCircleFilled(on_circle(c, r, q_phi + v.angle_mod), 4.0f, theme::kRope);

  char buf[96];
  float y = c.y + r + 3.0f;
  if (v.passes) {  // a partial-rotary model leaves this pair as it is
    std::snprintf(buf, sizeof buf, "i=%d  θ=0", i);
    dl->AddText(ImVec2(p0.x + 4, y), theme::kMuted, buf);
    dl->AddText(ImVec2(p0.x + 4, y + lh), theme::kMuted, "passes through");
    return;
  }
  std::snprintf(buf, sizeof buf, "i=%d  θ=%s", i, format_sig(v.theta, 3).c_str());
  dl->AddText(ImVec2(p0.x + 4, y), ImGui::GetColorU32(ImGuiCol_Text), buf);
  std::snprintf(buf, sizeof buf, "∠%.3f  λ=%s", v.angle_mod, format_sig(v.wavelength, 4).c_str());
  dl->AddText(ImVec2(p0.x + 4, y + lh), v.beyond_table ? theme::kLearned : theme::kMuted, buf);
}

void cell_tooltip(const App& app, int i) {
  const PairView v = pair_view(app, i);
  begin_tooltip();
  const Model& model = app.model;
  if (v.passes) {
    ImGui::Text("pair i = %d passes through: %s rotates only its first %s (partial rotary)", i,
                model.real->name.c_str(), plural(model.rotary_pairs, "pair", "pairs").c_str());
    end_tooltip();
    return;
  }
  if (model.real && model.real->info.rope)
    ImGui::Text("pair i = %d   θᵢ of %s (%s) = %s", i, model.real->name.c_str(),
                model.real->info.rope->rope_type.c_str(), format_sig(v.theta, 17).c_str());
  else
    ImGui::Text("pair i = %d   θᵢ = base^(−2i/d_head) = %s", i, format_sig(v.theta, 17).c_str());
  ImGui::Text("m·θᵢ = %s × θᵢ = %s rad", format_count(app.params.position).c_str(), format_sig(v.angle, 17).c_str());
  ImGui::Text("m·θᵢ mod 2π = %s rad (the arc)", format_sig(v.angle_mod, 17).c_str());
  ImGui::Text("wavelength 2π/θᵢ = %s positions", format_sig(v.wavelength, 17).c_str());
  if (v.beyond_table)
    ImGui::TextColored(theme::vec(theme::kLearned),
                       "wavelength > max_position = %s: never completes a turn in the table",
                       format_count(app.params.max_position).c_str());
  ImGui::TextColored(theme::vec(theme::kRope), "q pair (%.4f, %.4f) -> RoPE(q, m) (%.4f, %.4f)", v.q.x(), v.q.y(),
                     v.q_rot.x(), v.q_rot.y());
  ImGui::TextColored(theme::vec(theme::kKey), "RoPE(k, n = %s) pair (%.4f, %.4f)",
                     format_count(app.params.key_position).c_str(), v.k_rot.x(), v.k_rot.y());
  ImGui::TextDisabled("x' = x cos φ − y sin φ,  y' = x sin φ + y cos φ,  φ = m·θᵢ.  ‖pair‖ = %.6f kept", v.q.norm());
  end_tooltip();
}

// V [d_head] as bars: RoPE leaves it alone, so one column serves before and after.
void show_v(const App& app, float width, float height) {
  const Eigen::VectorXd& v = app.model.v;
  ImGui::TextDisabled("V");
  ImGui::TextDisabled("as is");
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float h = std::max(20.0f, height - 2.0f * ImGui::GetTextLineHeightWithSpacing() - 4.0f);
  ImGui::InvisibleButton("v_bars", ImVec2(width, h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int n = int(v.size());
  const int bars = std::max(1, std::min(n, int(h / 2.0f)));
  const double vmax = std::max(1e-12, v.cwiseAbs().maxCoeff());
  const float cx = p0.x + width * 0.5f, bh = h / bars;
  dl->AddLine(ImVec2(cx, p0.y), ImVec2(cx, p0.y + h), theme::kGrid);
  for (int b = 0; b < bars; ++b) {
    const int j0 = b * n / bars, j1 = std::max(j0 + 1, (b + 1) * n / bars);
    double x = 0;
    for (int j = j0; j < j1; ++j)
      if (std::abs(v[j]) > std::abs(x)) x = v[j];
    const float w = float(x / vmax) * width * 0.45f;
    dl->AddRectFilled(ImVec2(std::min(cx, cx + w), p0.y + b * bh + 0.5f),
                      ImVec2(std::max(cx, cx + w), p0.y + (b + 1) * bh - (bh > 3 ? 1.0f : 0.0f)), theme::kMuted);
  }
  if (ImGui::IsItemHovered() && ImGui::IsMousePosValid()) {  // not a keyboard focus: a mouse over it
    const int j = std::clamp(int((ImGui::GetIO().MousePos.y - p0.y) / h * n), 0, n - 1);
    tooltip("v[%d] = %.6f\nV goes into attention unchanged: RoPE rotates Q and K only.", j, v[j]);
  }
}

}  // namespace

PairView pair_view(const App& app, int i) {
  const Model& model = app.model;
  const Pairing p = app.params.pairing;
  PairView v;
  v.theta = model.inv_freq[i];
  v.angle = model.angles[i];
  v.angle_mod = std::fmod(v.angle, kTwoPi);
  v.wavelength = rope_wavelength(v.theta);
  v.q = rope_pair(model.q, i, p);
  v.q_rot = rope_pair(model.q_rot, i, p);
  v.k_rot = rope_pair(model.k_rot, i, p);
  v.beyond_table = v.wavelength > double(app.params.max_position);
  v.passes = i >= model.rotary_pairs;
  return v;
}

void show_rotations(App& app) {
  const int pairs = int(app.model.inv_freq.size());
  ImGui::TextColored(theme::vec(theme::kRope), "%s rotated by m·θᵢ at m = %s", plural(pairs, "pair", "pairs").c_str(),
                     format_count(app.params.position).c_str());
  formula_tip(
      "Pair i of q (faint line) is rotated by φ = m·θᵢ (the arc, shown mod 2π) into RoPE(q, m) (solid). "
      "Violet: RoPE(k, n). θᵢ = base^(-2i/d_head); wavelength λ = 2π/θᵢ. Amber frame: λ > max_position, "
      "so the pair never completes a turn inside the learned table's range. Hover a circle for exact values.");
  const char* hint = "low i spins fast, high i barely moves";
  if (ImGui::GetItemRectMax().x + 20.0f + ImGui::CalcTextSize(hint).x <
      ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) {
    ImGui::SameLine(0.0f, 20.0f);
    ImGui::TextDisabled("%s", hint);  // only when it fits beside the title
  }

  const float v_width = 56.0f * app.ui.scale;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  ImGui::BeginChild("pairs", ImVec2(std::max(50.0f, avail.x - v_width - spacing), avail.y), false, kChildFlags);
  const float grid_w = ImGui::GetContentRegionAvail().x;
  const float min_cell = 132.0f * app.ui.scale;
  const int per_row = std::max(1, std::min(pairs, int(grid_w / min_cell)));
  const float cell = std::min(grid_w / per_row, std::max(min_cell, avail.y));
  const int rows = (pairs + per_row - 1) / per_row;
  ImGuiListClipper clipper;
  clipper.Begin(rows, cell);
  while (clipper.Step()) {
    for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
      const ImVec2 p0 = ImGui::GetCursorScreenPos();
      for (int col = 0; col < per_row; ++col) {
        const int i = row * per_row + col;
        if (i >= pairs) break;
        const ImVec2 cp(p0.x + col * cell, p0.y);
        draw_pair_cell(app, i, cp, cell);
        if (ImGui::IsMouseHoveringRect(cp, ImVec2(cp.x + cell, cp.y + cell)) && ImGui::IsWindowHovered())
          cell_tooltip(app, i);
      }
      ImGui::Dummy(ImVec2(grid_w, cell - ImGui::GetStyle().ItemSpacing.y));  // a row advances by `cell`
    }
  }
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginGroup();
  show_v(app, v_width, std::min(avail.y, float(rows) * cell));  // ends with the grid's last row, or the panel
  ImGui::EndGroup();
}

std::string describe_rotations(const App& app) {
  const Model& model = app.model;
  const int pairs = int(model.inv_freq.size());
  int long_pairs = 0;
  for (int i = 0; i < model.rotary_pairs; ++i)
    long_pairs += rope_wavelength(model.inv_freq[i]) > double(app.params.max_position);
  return "Rotations panel: each pair of q drawn on the unit circle before and after rotating by m times theta_i; " +
         format_count(long_pairs) + " of " + plural(pairs, "pair", "pairs") + (long_pairs == 1 ? " has" : " have") +
         " a wavelength longer than max_position, so " +
         (long_pairs == 1 ? "it never completes" : "they never complete") + " a turn inside the table; " +
         (model.rotary_pairs < pairs
              ? plural(pairs - model.rotary_pairs, "pair passes", "pairs pass") + " through unrotated; "
              : std::string()) +
         "V is not rotated.";
}

}  // namespace rv
