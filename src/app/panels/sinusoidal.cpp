// Panel 10, sinusoidal position encoding (Vaswani et al. 3.5): PE[pos, 2i] = sin(pos / base^(2i/d)),
// PE[pos, 2i+1] = cos(...), from core's sinusoidal(), as a heatmap over positions (down) and dims
// (across) with position m marked. Drawn at width d_head, so dims 2i, 2i+1 use exactly RoPE's theta_i.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/format.hpp"
#include "app/model.hpp"
#include "app/panels.hpp"
#include "app/plots.hpp"
#include "app/theme.hpp"
#include "app/widgets.hpp"
#include "imgui.h"

namespace rv {

void show_sinusoidal(App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  ImGui::TextColored(theme::vec(theme::rope), "PE[pos, 2i] = sin(pos·θᵢ), PE[pos, 2i+1] = cos(pos·θᵢ)");
  formula_tip(
      "Vaswani et al. 2017, 3.5: PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = "
      "cos(pos / 10000^(2i/d_model)), added to the token embeddings before the first layer. Drawn at width "
      "d_head so its frequencies are RoPE's θᵢ; a model of width d_model would use 2i/d_model.");
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled(
      "θᵢ = %g^(−2i/%d). Same frequencies as RoPE: dims (2i, 2i+1) hold (sin, cos) of the angle pos·θᵢ that RoPE "
      "rotates pair i by. Sinusoidal PE is added to the input once; RoPE rotates Q and K in every "
      "layer, so q·k sees only m − n.",
      p.base, p.d_head);
  ImGui::PopTextWrapPos();

  char pe_m[96] = "", rows[96];
  if (m.sinus_at_m.size() >= 2)
    std::snprintf(pe_m, sizeof pe_m, "PE[m] = (sin, cos)(m·θ₀) = (%.6f, %.6f)%s", m.sinus_at_m[0], m.sinus_at_m[1],
                  m.sinus_at_m.size() > 2 ? ", ..." : "");
  std::snprintf(rows, sizeof rows, "rows: %d positions in 0..%.0f; columns: %d dims", m.sinus.rows, m.sinus_x_end,
                m.sinus.cols);
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const bool two_lines =
      ImGui::CalcTextSize(pe_m).x + ImGui::CalcTextSize(rows).x + 2 * ImGui::GetStyle().ItemSpacing.x > avail.x;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float margin = ImGui::CalcTextSize("0000000000").x + 6.0f;
  const ImVec2 size(std::max(40.0f, avail.x - margin), std::max(40.0f, avail.y - (two_lines ? 3.3f : 2.3f) * lh));
  ImGui::InvisibleButton("sinusoidal", ImVec2(avail.x, size.y));
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 a(p0.x + margin, p0.y), b(a.x + size.x, a.y + size.y);
  heatmap(app.ui.gpu.get(), HeatSlot::Sinusoidal, m.sinus, a, b, -1.0f, 1.0f);

  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(p0, ImVec2(p0.x + avail.x, p0.y + size.y), true);
  char buf[64];
  dl->AddText(ImVec2(p0.x, a.y), theme::muted, "pos 0");
  std::snprintf(buf, sizeof buf, "%.0f", m.sinus_x_end);
  dl->AddText(ImVec2(p0.x, b.y - ImGui::GetTextLineHeight()), theme::muted, buf);
  if (m.sinus_x_end > 0 && double(p.position) <= m.sinus_x_end) {
    const float y = a.y + float(double(p.position) / m.sinus_x_end) * (b.y - a.y);
    dl->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), IM_COL32_WHITE, 2.0f);
    std::snprintf(buf, sizeof buf, "m = %lld", p.position);
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    const float ty = std::min(y + 1, b.y - ts.y);
    dl->AddRectFilled(ImVec2(b.x - ts.x - 6, ty), ImVec2(b.x - 2, ty + ts.y), IM_COL32(20, 22, 26, 210), 2.0f);
    dl->AddText(ImVec2(b.x - ts.x - 4, ty), IM_COL32_WHITE, buf);
  }
  dl->PopClipRect();

  if (hovered && m.sinus.rows > 0) {
    const ImVec2 mp = ImGui::GetIO().MousePos;
    const int r = std::clamp(int((mp.y - a.y) / (b.y - a.y) * m.sinus.rows), 0, m.sinus.rows - 1);
    const int c = std::clamp(int((mp.x - a.x) / (b.x - a.x) * m.sinus.cols), 0, m.sinus.cols - 1);
    ImGui::SetTooltip("pos = %.0f, dim %d (%s of pair %d)\nPE = %.8f", m.sinus_positions[size_t(r)], c,
                      c % 2 == 0 ? "sin" : "cos", c / 2, double(m.sinus.values[size_t(r) * m.sinus.cols + c]));
  }
  ImGui::TextUnformatted(pe_m);
  same_line_if_fits(ImGui::CalcTextSize(rows).x);
  ImGui::TextDisabled("%s", rows);
  colour_legend("PE", -1.0f, 1.0f, avail.x * 0.6f);
}

std::string describe_sinusoidal(const App& app) {
  return "Sinusoidal panel: Vaswani's sin and cos position encoding over positions 0 to " +
         format_sig(app.model.sinus_x_end) + " and " + plural(app.params.d_head, "dim", "dims") +
         ", with position m marked; it uses RoPE's frequencies theta_i but is added to the input once, while RoPE "
         "rotates Q and K.";
}

}  // namespace rv
