// Precision at position m: core's rope_precision per pair, float64 as the reference.
// The naive recipe (Llama 2's reference code: theta_i in the format, m in the format, m * theta_i
// rounded to the format) against ours (angle in double, cos/sin rounded once), in float32, float16
// and bfloat16; and how far each format represents integer positions exactly.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/state/model.hpp"
#include "app/ui/plot_kit.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

constexpr double kErrFloor = 1e-10;  // the plot's bottom: smaller errors (and exact zeros) sit on it
constexpr double kErrTop = 10.0;

// The plotted series: recipe row, format column, colour, label.
struct Series {
  int recipe, format;
  ImU32 colour;
  const char* label;
};
constexpr Series kSeries[] = {
    {0, 0, theme::kError, "naive float32"},
    {1, 0, theme::kRope, "ours float32"},
    {1, 1, theme::kKey, "ours float16"},
    {1, 2, theme::kLearned, "ours bfloat16"},
};

// "1.5e-07", "0 (exact)" or "m overflows" (naive recipe: m itself is rounded) for a report's largest angle error.
void error_text(char* buf, size_t n, const PrecisionReport& r) {
  if (r.recipe == AngleRecipe::Naive && !std::isfinite(r.position_in_format))
    std::snprintf(buf, n, "m overflows");
  else if (r.max_angle_err == 0.0)
    std::snprintf(buf, n, "0 (exact)");
  else
    std::snprintf(buf, n, "%s rad", format_sig(r.max_angle_err, 3).c_str());
}

void summary_table(const App& app) {
  const Model& model = app.model;
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
    const PrecisionReport& naive = model.precision[0][f];
    const PrecisionReport& ours = model.precision[1][f];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(float_format_name(kPrecisionFormats[f]));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_sig(exact_integer_limit(kPrecisionFormats[f]), 10).c_str());
    ImGui::TableNextColumn();
    const bool moved = naive.position_in_format != naive.position;
    if (moved)
      ImGui::TextColored(theme::vec(theme::kError), "%s", format_sig(naive.position_in_format, 10).c_str());
    else
      ImGui::TextUnformatted(format_sig(naive.position_in_format, 10).c_str());
    ImGui::TableNextColumn();
    error_text(buf, sizeof buf, naive);
    ImGui::TextColored(theme::vec(naive.max_angle_err > 1e-3 || moved ? theme::kError : theme::kMuted), "%s", buf);
    ImGui::TableNextColumn();
    error_text(buf, sizeof buf, ours);
    ImGui::TextUnformatted(buf);
  }
  ImGui::EndTable();
}

void readout(const App& app, int i) {
  const Model& model = app.model;
  const PairPrecision& ref = model.precision[1][0].pairs[size_t(i)];
  ImGui::Text("pair i = %d: θᵢ = %s, m·θᵢ = %s rad (float64)", i, format_sig(ref.theta, 10).c_str(),
              format_sig(ref.angle_ref, 17).c_str());
  for (int r = 0; r < 2; ++r)
    for (int fm = 0; fm < 3; ++fm) {
      const PairPrecision& pp = model.precision[r][fm].pairs[size_t(i)];
      const char *recipe = angle_recipe_name(kPrecisionRecipes[r]), *format = float_format_name(kPrecisionFormats[fm]);
      if (std::isnan(pp.angle_err))
        ImGui::Text("%s %s: m overflows the format", recipe, format);
      else
        ImGui::Text("%s %s: angle error %s rad, rotation error %s", recipe, format, format_sig(pp.angle_err, 3).c_str(),
                    format_sig(pp.rotation_err, 3).c_str());
    }
}

// Where an error sits on the plot: exact zeros (and tiny errors) on the floor, overflow at the top.
double shown_error(double e) {
  return std::isfinite(e) ? std::max(e, kErrFloor) : kErrTop;
}

void draw_plot(const App& app, float height) {
  const Model& model = app.model;
  const int pairs = int(model.base_inv_freq.size());
  plot::Spec spec;
  spec.x = {"pair i (0 fast … slow)", plot::Scale::Linear, -0.5, pairs - 0.5, true};
  spec.y = {"|angle error| (rad, log) vs float64", plot::Scale::Log10, kErrFloor, kErrTop};
  if (!plot::begin_plot("precision_plot", ImVec2(ImGui::GetContentRegionAvail().x, height), spec)) return;
  const float dot = plot::dots_for(pairs);
  for (const Series& s : kSeries) {
    const std::vector<PairPrecision>& pp = model.precision[s.recipe][s.format].pairs;
    plot::plot_line_g(s.label, pairs, [&pp](int i) { return shown_error(pp[size_t(i)].angle_err); },
                      {s.colour, 1.5f, dot});
  }
  plot::end_plot([&](double x) { readout(app, int(x)); });
}

// With a real model, the same figures at its context length (max_position), whatever m is.
void context_line(const App& app) {
  const Model& model = app.model;
  if (!model.real) return;
  const PrecisionReport(&c)[2][3] = model.precision_context;
  char naive[48], ours[48], context[28];
  error_text(naive, sizeof naive, c[0][0]);
  error_text(ours, sizeof ours, c[1][0]);
  const double f16 = c[0][1].position_in_format;
  ImGui::PushStyleColor(ImGuiCol_Text, theme::vec(theme::kLearned));
  ImGui::TextWrapped(
      "At %s's context %s: float32 angles lose up to %s (naive), %s (ours); built in bfloat16 the position would "
      "be %s, in float16 %s.",
      model.real->name.c_str(), format_count(app.params.max_position, context, sizeof context), naive, ours,
      format_sig(c[0][2].position_in_format, 10).c_str(),
      std::isfinite(f16) ? format_sig(f16, 10).c_str() : "∞ (overflow)");
  ImGui::PopStyleColor();
}

}  // namespace

void show_precision(App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  const PrecisionReport& naive = model.precision[0][0];
  const PrecisionReport& ours = model.precision[1][0];
  ImGui::TextWrapped(
      "At m = %s, float32: the naive recipe loses up to %s rad, ours %s rad (max angle "
      "error over pairs, vs float64).",
      format_count(p.position).c_str(), format_sig(naive.max_angle_err, 3).c_str(),
      format_sig(ours.max_angle_err, 3).c_str());
  formula_tip(
      "Naive (Llama 2 reference code): freqs = 1 / base ** (arange(0, d, 2).float() / d) in float32, "
      "t = arange(end).float(), angles = outer(t, freqs) in float32, then polar(). m·θᵢ is rounded to "
      "24 significant bits (an ulp at 1e6 is 0.0625 rad) and θᵢ's own rounding error is multiplied by m. "
      "Ours: m·θᵢ in double, cos and sin rounded once to the format: error ≈ half an ulp of cos/sin. "
      "Angle error = |atan2(sin, cos) − m·θᵢ| wrapped to [−π, π].");
  const PrecisionReport& bf = model.precision[0][2];
  ImGui::TextWrapped(
      "bfloat16 represents integer positions exactly only up to %s: built in bfloat16, position m "
      "would round to %s. Hugging Face's and Meta's code build positions and angles in float32 "
      "whatever the weights' dtype, so this happens only where the angles are built in bf16.",
      format_sig(exact_integer_limit(FloatFormat::BF16), 10).c_str(), format_sig(bf.position_in_format, 10).c_str());
  const PrecisionReport& h = model.precision[0][1];
  if (!std::isfinite(h.position_in_format))
    ImGui::TextColored(theme::vec(theme::kError), "float16 tops out at 65,504: position m overflows to ∞");
  context_line(app);
  summary_table(app);
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  draw_plot(app, std::max(120.0f, ImGui::GetContentRegionAvail().y - 1.2f * lh));
  ImGui::TextDisabled("errors below 1e-10 (and exact zeros) sit on the floor; hover a pair for all six");
}

std::string describe_precision(const App& app) {
  const Model& model = app.model;
  const std::string at = format_count(app.params.position);
  return "Precision panel: at position " + at + ", computing angles the naive float32 way loses up to " +
         format_sig(model.precision[0][0].max_angle_err, 3) + " radians, ours " +
         format_sig(model.precision[1][0].max_angle_err, 3) +
         "; bfloat16 represents integer positions exactly only up to " +
         format_sig(exact_integer_limit(FloatFormat::BF16)) + ", so position " + at + " would round to " +
         format_sig(model.precision[0][2].position_in_format, 10) +
         " if the angles were built in bfloat16 (Hugging Face and Meta build them in float32 whatever the weights' "
         "dtype).";
}

}  // namespace rv
