// The angle field: cos(x·θᵢ) over positions x (across) and pairs i (down) as a shader
// heatmap with m and max_position marked. Low pairs spin fast, high pairs barely move; pairs that
// turn more than π per column are hatched ("aliased at this zoom"), never drawn as false stripes.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/state/model.hpp"
#include "app/ui/heatmap.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "core/rope/rope.hpp"
#include "imgui.h"

namespace rv {
namespace {

// First pair whose wavelength 2 pi / theta_i exceeds `length` (pairs at and below it are longer).
int first_pair_longer_than(const Eigen::VectorXd& inv_freq, double length) {
  for (int i = 0; i < inv_freq.size(); ++i)
    if (rope_wavelength(inv_freq[i]) > length) return i;
  return int(inv_freq.size());
}

// Fraction across the field of position x.
double field_u(const Model& model, double x) {
  return model.field_x_end > model.field_x0 ? (x - model.field_x0) / (model.field_x_end - model.field_x0) : -1.0;
}

void field_marks(const Params& p, const Model& model, const HeatFrame& f) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int pairs = int(model.inv_freq.size());
  char buf[96];
  dl->PushClipRect(f.p0, ImVec2(f.p0.x + f.width, f.b.y), true);
  std::snprintf(buf, sizeof buf, "i=%d", pairs - 1);
  row_end_labels(dl, f, "i=0", pairs > 1 ? buf : "");
  std::snprintf(buf, sizeof buf, "aliased at this zoom: θᵢ·%s > π", format_sig(model.field_step, 3).c_str());
  hatch_flagged(dl, f, Marker::Horizontal, model.field_aliased, 1, pairs, buf);
  // Aliased pairs are the fast ones, at the top: the position lines stay in the rows below them.
  const int hatched =
      int(std::find(model.field_aliased.begin(), model.field_aliased.end(), false) - model.field_aliased.begin());
  HeatFrame drawn = f;
  if (hatched < pairs) drawn.a.y += (f.b.y - f.a.y) * float(hatched) / float(pairs);
  const int slow = first_pair_longer_than(model.inv_freq, double(p.max_position));
  if (slow > hatched && slow < pairs)
    frame_marker(dl, f, Marker::Horizontal, double(slow) / pairs, theme::kLearned, "λ > max_position below",
                 LabelAt::End, true);
  std::snprintf(buf, sizeof buf, "max_position %s", format_count(p.max_position).c_str());
  frame_marker(dl, drawn, Marker::Vertical, field_u(model, double(p.max_position)), theme::kLearned, buf,
               LabelAt::Start, false);
  std::snprintf(buf, sizeof buf, "m = %s", format_count(p.position).c_str());
  frame_marker(dl, drawn, Marker::Vertical, field_u(model, double(p.position)), IM_COL32_WHITE, buf, LabelAt::End,
               false);
  dl->PopClipRect();
}

void field_tooltip(const Model& model, const HeatFrame& f) {
  const int pairs = int(model.inv_freq.size());
  const ImVec2 uv = f.mouse_uv();
  const double x = model.field_x0 + std::round(uv.x * (model.field.cols - 1)) * model.field_step;
  const int i = std::clamp(int(uv.y * pairs), 0, pairs - 1);
  if (i >= model.rotary_pairs) {
    tooltip("x = %s, pair i = %d\nnot rotated: the model rotates only its first %d pairs (cos 0 = 1)",
            format_sig(x, 10).c_str(), i, model.rotary_pairs);
    return;
  }
  const double angle = x * model.inv_freq[i];
  char last[96];
  if (model.field_aliased[size_t(i)])
    std::snprintf(last, sizeof last, "aliased at this zoom: θᵢ·Δx = %s rad > π per column",
                  format_sig(model.inv_freq[i] * model.field_step, 3).c_str());
  else
    std::snprintf(last, sizeof last, "x·θᵢ = %s rad, cos = %s", format_sig(angle, 10).c_str(),
                  format_sig(std::cos(angle), 8).c_str());
  tooltip("x = %s, pair i = %d\nθᵢ = %s, wavelength %s positions\n%s", format_sig(x, 10).c_str(), i,
          format_sig(model.inv_freq[i]).c_str(), format_sig(rope_wavelength(model.inv_freq[i])).c_str(), last);
}

}  // namespace

void show_angle_field(App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  ImGui::TextColored(theme::vec(theme::kRope), "cos(x·θᵢ): pairs i = 0..%d down, positions x across",
                     int(model.inv_freq.size()) - 1);
  formula_tip(
      "Each row is one pair i, each column a position x; colour = cos(x·θᵢ), the real part of freqs_cis. "
      "θᵢ = base^(-2i/d_head): pair 0 turns once every 2π positions, the last pair once every "
      "2π·base^((d_head-2)/d_head). White line: position m; amber line: max_position. Far from 0 the field "
      "shows a window around m, one column per position; a pair turning more than π per column cannot be "
      "drawn faithfully (it would show false, slower stripes), so its row is hatched instead.");
  const float below = wrapped_height(model.field_words.c_str()) + 1.4f * ImGui::GetTextLineHeightWithSpacing();
  const HeatFrame f = heat_frame("field", ImGui::CalcTextSize("i=000").x + 8.0f, below);
  heatmap(app.ui.gpu.get(), HeatSlot::Field, model.field, f.a, f.b, -1.0f, 1.0f);
  field_marks(p, model, f);
  if (f.hovered && model.field.cols > 0) field_tooltip(model, f);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s", model.field_words.c_str());
  ImGui::PopTextWrapPos();
  colour_legend("cos(x·θᵢ)", -1.0f, 1.0f, f.width * 0.6f);
}

std::string describe_angle_field(const App& app) {
  const Model& model = app.model;
  return "Angle field panel: cos of x times theta_i; " + model.field_words +
         "; low pairs change fast, high pairs slowly.";
}

}  // namespace rv
