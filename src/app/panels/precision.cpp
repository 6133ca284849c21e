// Panel 9, precision at position m: core's rope_precision per pair, float64 as the reference.
// The naive recipe (Llama 2's reference code: theta_i in the format, m in the format, m * theta_i
// rounded to the format) against ours (angle in double, cos/sin rounded once), in float32, float16
// and bfloat16; and how far each format represents integer positions exactly.
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

constexpr double err_floor = 1e-10;  // the plot's bottom: smaller errors (and exact zeros) sit on it
constexpr double err_top = 10.0;

// The plotted series: recipe row, format column, colour, label.
struct Series {
  int recipe, format;
  ImU32 colour;
  const char* label;
};
constexpr Series series[] = {
    {0, 0, theme::error, "naive float32"},
    {1, 0, theme::rope, "ours float32"},
    {1, 1, theme::key, "ours float16"},
    {1, 2, theme::learned, "ours bfloat16"},
};

// "1.5e-07", "0 (exact)" or "m overflows" (naive recipe: m itself is rounded) for a report's largest angle error.
void error_text(char* buf, size_t n, const PrecisionReport& r) {
  if (r.recipe == AngleRecipe::Naive && !std::isfinite(r.position_in_format))
    std::snprintf(buf, n, "m overflows");
  else if (r.max_angle_err == 0.0)
    std::snprintf(buf, n, "0 (exact)");
  else
    std::snprintf(buf, n, "%.3g rad", r.max_angle_err);
}

void summary_table(const App& app) {
  const Model& m = app.model;
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("precision_table", 5, flags)) return;
  ImGui::TableSetupColumn("format");
  ImGui::TableSetupColumn("exact to");
  ImGui::TableSetupColumn("m stored");
  ImGui::TableSetupColumn("naive err");
  ImGui::TableSetupColumn("ours err");
  ImGui::TableHeadersRow();
  char buf[48];
  for (int f = 0; f < 3; ++f) {
    const PrecisionReport& naive = m.precision[0][f];
    const PrecisionReport& ours = m.precision[1][f];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(float_format_name(precision_formats[f]));
    ImGui::TableNextColumn();
    ImGui::Text("%.0f", exact_integer_limit(precision_formats[f]));
    ImGui::TableNextColumn();
    const bool moved = naive.position_in_format != naive.position;
    if (moved)
      ImGui::TextColored(theme::vec(theme::error), "%.10g", naive.position_in_format);
    else
      ImGui::Text("%.10g", naive.position_in_format);
    ImGui::TableNextColumn();
    error_text(buf, sizeof buf, naive);
    ImGui::TextColored(theme::vec(naive.max_angle_err > 1e-3 || moved ? theme::error : theme::muted), "%s", buf);
    ImGui::TableNextColumn();
    error_text(buf, sizeof buf, ours);
    ImGui::TextUnformatted(buf);
  }
  ImGui::EndTable();
}

void hover_readout(const App& app, const PlotFrame& f) {
  const Model& m = app.model;
  const int pairs = int(m.inv_freq.size());
  const int i = std::clamp(int(std::lround(f.data_x(ImGui::GetIO().MousePos.x))), 0, pairs - 1);
  const PairPrecision& ref = m.precision[1][0].pairs[size_t(i)];
  ImGui::BeginTooltip();
  ImGui::Text("pair i = %d: θᵢ = %.10g, m·θᵢ = %.17g rad (float64)", i, ref.theta, ref.angle_ref);
  for (int r = 0; r < 2; ++r)
    for (int fm = 0; fm < 3; ++fm) {
      const PairPrecision& pp = m.precision[r][fm].pairs[size_t(i)];
      if (std::isnan(pp.angle_err))
        ImGui::Text("%s %s: m overflows the format", angle_recipe_name(precision_recipes[r]),
                    float_format_name(precision_formats[fm]));
      else
        ImGui::Text("%s %s: angle error %.3g rad, rotation error %.3g", angle_recipe_name(precision_recipes[r]),
                    float_format_name(precision_formats[fm]), pp.angle_err, pp.rotation_err);
    }
  ImGui::EndTooltip();
}

void draw_plot(const App& app, float height) {
  const Model& m = app.model;
  const int pairs = int(m.inv_freq.size());
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float w = std::max(80.0f, avail.x);
  ImGui::InvisibleButton("precision_plot", ImVec2(w, height));
  const bool hovered = ImGui::IsItemHovered();
  const float lh = ImGui::GetTextLineHeight();
  const float margin_l = ImGui::CalcTextSize("1e-10").x + 8.0f;
  const PlotFrame f{ImVec2(p0.x + margin_l, p0.y + 4),
                    ImVec2(p0.x + w - 6, p0.y + height - lh - 4),
                    -0.5,
                    double(pairs) - 0.5,
                    std::log10(err_floor),
                    std::log10(err_top)};
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(p0, ImVec2(p0.x + w, p0.y + height), true);
  dl->AddRect(f.a, f.b, theme::grid);
  char buf[32];
  for (int e = -10; e <= 0; e += 2) {
    const float y = f.sy(double(e));
    dl->AddLine(ImVec2(f.a.x, y), ImVec2(f.b.x, y), theme::grid & 0x60FFFFFF);
    std::snprintf(buf, sizeof buf, "1e%d", e);
    dl->AddText(ImVec2(f.a.x - ImGui::CalcTextSize(buf).x - 4, y - lh * 0.5f), theme::muted, buf);
  }
  dl->AddText(ImVec2(f.a.x + 4, f.a.y + 2), theme::muted, "|angle error| (rad, log) vs float64");
  const float dot = pairs > 64 ? 1.5f : 3.0f;
  for (const Series& s : series) {
    const std::vector<PairPrecision>& pp = m.precision[s.recipe][s.format].pairs;
    auto at = [&](int i) {
      const double e = std::isfinite(pp[size_t(i)].angle_err) ? std::max(pp[size_t(i)].angle_err, err_floor) : err_top;
      return ImVec2(f.sx(i), f.sy(std::log10(e)));
    };
    for (int i = 0; i < pairs; ++i) dl->PathLineTo(at(i));  // the line first: AddCircleFilled uses the path
    dl->PathStroke(s.colour, 0, 1.5f);
    for (int i = 0; i < pairs; ++i) dl->AddCircleFilled(at(i), dot, s.colour);
  }
  dl->AddText(ImVec2(f.a.x, f.b.y + 2), theme::muted, "pair 0 (fast)");
  std::snprintf(buf, sizeof buf, "pair %d (slow)", pairs - 1);
  dl->AddText(ImVec2(f.b.x - ImGui::CalcTextSize(buf).x, f.b.y + 2), theme::muted, buf);
  dl->PopClipRect();
  if (hovered) hover_readout(app, f);
}

}  // namespace

void show_precision(App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  const PrecisionReport& naive = m.precision[0][0];
  const PrecisionReport& ours = m.precision[1][0];
  ImGui::TextWrapped(
      "At m = %lld, float32: the naive recipe loses up to %.3g rad, ours %.3g rad (max angle "
      "error over pairs, vs float64).",
      p.position, naive.max_angle_err, ours.max_angle_err);
  formula_tip(
      "Naive (Llama 2 reference code): freqs = 1 / base ** (arange(0, d, 2).float() / d) in float32, "
      "t = arange(end).float(), angles = outer(t, freqs) in float32, then polar(). m·θᵢ is rounded to "
      "24 significant bits (an ulp at 1e6 is 0.0625 rad) and θᵢ's own rounding error is multiplied by m. "
      "Ours: m·θᵢ in double, cos and sin rounded once to the format: error ≈ half an ulp of cos/sin. "
      "Angle error = |atan2(sin, cos) − m·θᵢ| wrapped to [−π, π].");
  const PrecisionReport& bf = m.precision[0][2];
  ImGui::TextWrapped("bfloat16 represents integer positions exactly only up to %.0f: position m rounds to %.10g",
                     exact_integer_limit(FloatFormat::BF16), bf.position_in_format);
  const PrecisionReport& h = m.precision[0][1];
  if (!std::isfinite(h.position_in_format))
    ImGui::TextColored(theme::vec(theme::error), "float16 tops out at 65504: position m overflows to inf");
  summary_table(app);
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  draw_plot(app, std::max(80.0f, ImGui::GetContentRegionAvail().y - 1.2f * lh));
  for (const Series& s : series) {
    if (&s != series) same_line_if_fits(ImGui::CalcTextSize(s.label).x + ImGui::GetFontSize());
    ImGui::TextColored(theme::vec(s.colour), "● %s", s.label);
  }
  formula_tip("Errors below 1e-10 (and exact zeros) sit on the plot's floor. Hover a pair for all six.");
}

std::string describe_precision(const App& app) {
  const Model& m = app.model;
  const std::string at = format_count(app.params.position);
  return "Precision panel: at position " + at + ", computing angles the naive float32 way loses up to " +
         format_sig(m.precision[0][0].max_angle_err, 3) + " radians, ours " +
         format_sig(m.precision[1][0].max_angle_err, 3) + "; bfloat16 represents integer positions exactly only up to " +
         format_sig(exact_integer_limit(FloatFormat::BF16)) + ", so position " + at + " rounds to " +
         format_sig(m.precision[0][2].position_in_format, 10) + ".";
}

}  // namespace rv
