// Panel 4, the angle field: cos(x * theta_i) over positions x (across) and pairs i (down) as a
// shader heatmap, with the max_position line and the position cursor. Low pairs spin fast (fine
// stripes, aliased where a column step exceeds half a wavelength); high pairs barely move.
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
namespace {

// Text on a dark plate, readable over the stripes.
void plate_text(ImDrawList* dl, ImVec2 at, ImU32 colour, const char* text) {
  const ImVec2 size = ImGui::CalcTextSize(text);
  dl->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + size.x + 2, at.y + size.y), IM_COL32(20, 22, 26, 210), 2.0f);
  dl->AddText(at, colour, text);
}

// First pair whose wavelength 2 pi / theta_i exceeds `length` (pairs at and below it are longer).
int first_pair_longer_than(const Eigen::VectorXd& inv_freq, double length) {
  for (int i = 0; i < inv_freq.size(); ++i)
    if (two_pi / inv_freq[i] > length) return i;
  return int(inv_freq.size());
}

void vertical_marker(ImDrawList* dl, const ImVec2& a, const ImVec2& b, double x, double x_end, ImU32 colour,
                     const char* label) {
  if (x < 0 || x > x_end) return;
  const float px = a.x + float(x / x_end) * (b.x - a.x);
  dl->AddLine(ImVec2(px, a.y), ImVec2(px, b.y), colour, 2.0f);
  const float tw = ImGui::CalcTextSize(label).x;
  plate_text(dl, ImVec2(std::min(px + 3, b.x - tw - 2), a.y + 1), colour, label);
}

void horizontal_marker(ImDrawList* dl, const ImVec2& a, const ImVec2& b, int pair, int pairs, ImU32 colour,
                       const char* label) {
  if (pair <= 0 || pair >= pairs) return;
  const float py = a.y + (b.y - a.y) * float(pair) / float(pairs);
  for (float x = a.x; x < b.x; x += 10.0f) dl->AddLine(ImVec2(x, py), ImVec2(std::min(x + 5, b.x), py), colour, 1.5f);
  plate_text(dl, ImVec2(b.x - ImGui::CalcTextSize(label).x - 4, py + 1), colour, label);
}

}  // namespace

void show_angle_field(App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  const int pairs = int(m.inv_freq.size());
  ImGui::TextColored(theme::vec(theme::rope), "cos(x·θᵢ) for x in [0, %.6g], pairs i = 0..%d", m.field_x_end,
                     pairs - 1);
  formula_tip(
      "Each row is one pair i, each column a position x; colour = cos(x·θᵢ), the real part of freqs_cis. "
      "θᵢ = base^(-2i/d_head): pair 0 turns once every 2π positions, the last pair once every "
      "2π·base^((d_head-2)/d_head). White line: position m; amber line: max_position.");
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float margin = ImGui::CalcTextSize("i=000").x + 6.0f;
  const ImVec2 size(std::max(40.0f, avail.x - margin), std::max(40.0f, avail.y - 2.4f * lh));
  ImGui::InvisibleButton("field", ImVec2(avail.x, size.y));
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 a(p0.x + margin, p0.y), b(a.x + size.x, a.y + size.y);
  heatmap(app.ui.gpu.get(), HeatSlot::Field, m.field, a, b, -1.0f, 1.0f);

  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(p0, ImVec2(p0.x + avail.x, p0.y + size.y), true);
  char buf[64];
  dl->AddText(ImVec2(p0.x, a.y), theme::muted, "i=0");
  std::snprintf(buf, sizeof buf, "i=%d", pairs - 1);
  dl->AddText(ImVec2(p0.x, b.y - ImGui::GetTextLineHeight()), theme::muted, buf);
  const double step = m.field_x_end / double(field_columns - 1);
  std::snprintf(buf, sizeof buf, "λ > 2Δx: resolved below");
  horizontal_marker(dl, a, b, first_pair_longer_than(m.inv_freq, 2.0 * step), pairs, theme::muted, buf);
  std::snprintf(buf, sizeof buf, "λ > max_position below");
  horizontal_marker(dl, a, b, first_pair_longer_than(m.inv_freq, double(p.max_position)), pairs, theme::learned, buf);
  std::snprintf(buf, sizeof buf, "max_position %d", p.max_position);
  vertical_marker(dl, a, b, double(p.max_position), m.field_x_end, theme::learned, buf);
  std::snprintf(buf, sizeof buf, "m = %lld", p.position);
  vertical_marker(dl, a, b, double(p.position), m.field_x_end, IM_COL32_WHITE, buf);
  dl->PopClipRect();

  if (hovered) {
    const ImVec2 mp = ImGui::GetIO().MousePos;
    const double x = std::round(std::clamp(double(mp.x - a.x) / double(b.x - a.x), 0.0, 1.0) * m.field_x_end);
    const int i = std::clamp(int((mp.y - a.y) / (b.y - a.y) * pairs), 0, pairs - 1);
    const double angle = x * m.inv_freq[i];
    ImGui::SetTooltip("x = %.0f, pair i = %d\nθᵢ = %.6g, λ = %.6g\nx·θᵢ = %.10g rad, cos = %.8f", x, i, m.inv_freq[i],
                      two_pi / m.inv_freq[i], angle, std::cos(angle));
  }
  ImGui::TextDisabled("x: 0 .. %.6g, %d columns (Δx = %.4g); rows: pairs, low i (fast) at the top", m.field_x_end,
                      field_columns, step);
  colour_legend("cos(x·θᵢ)", -1.0f, 1.0f, avail.x * 0.6f);
}

std::string describe_angle_field(const App& app) {
  return "Angle field panel: cos of x times theta_i for positions x from 0 to " + format_sig(app.model.field_x_end) +
         ", low pairs changing fast, high pairs slowly.";
}

}  // namespace rv
