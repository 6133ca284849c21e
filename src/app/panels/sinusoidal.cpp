// Sinusoidal position encoding (Vaswani et al. 3.5): PE[pos, 2i] = sin(pos / 10000^(2i/d_model)),
// PE[pos, 2i+1] = cos(...), from core's sinusoidal_columns, as a heatmap over positions (down) and dims (across)
// with position m marked. Drawn as it is added to the input: at width d_model = h x d_head with base 10,000 (not
// RoPE's d_head and base); a wide model's dims are sampled by pairs. Dims whose pair turns more than π between rows
// are hatched rather than drawn as false stripes.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/state/model.hpp"
#include "app/ui/heatmap.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

void sinus_marks(const Params& p, const Model& model, const HeatFrame& f) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(f.p0, ImVec2(f.p0.x + f.width, f.b.y), true);
  row_end_labels(dl, f, format_count((long long)model.sinus_x0).c_str(),
                 format_count((long long)model.sinus_x_end).c_str());
  hatch_flagged(dl, f, Marker::Vertical, model.sinus_aliased, 2, model.sinus.cols, "aliased");
  const double span = model.sinus_x_end - model.sinus_x0;
  char buf[48];
  std::snprintf(buf, sizeof buf, "m = %s", format_count(p.position).c_str());
  frame_marker(dl, f, Marker::Horizontal, span > 0 ? (double(p.position) - model.sinus_x0) / span : -1.0,
               IM_COL32_WHITE, buf, LabelAt::End, false);
  dl->PopClipRect();
}

void sinus_tooltip(const Model& model, const HeatFrame& f) {
  const ImVec2 uv = f.mouse_uv();
  const int r = std::clamp(int(uv.y * model.sinus.rows), 0, model.sinus.rows - 1);
  const int c = std::clamp(int(uv.x * model.sinus.cols), 0, model.sinus.cols - 1);
  char last[96];
  const int dim = model.sinus_dims[size_t(c)];
  if (model.sinus_aliased[size_t(c / 2)])
    std::snprintf(last, sizeof last, "aliased at this zoom: θᵢ·Δpos = %s rad > π per row",
                  format_sig(model.sinus_theta[c / 2] * model.sinus_step, 3).c_str());
  else
    std::snprintf(last, sizeof last, "PE = %s",
                  format_sig(model.sinus.values[size_t(r) * model.sinus.cols + c], 8).c_str());
  tooltip("pos = %s, dim %d (%s of pair %d)\n%s", format_count((long long)model.sinus_positions[size_t(r)]).c_str(),
          dim, dim % 2 == 0 ? "sin" : "cos", dim / 2, last);
}

// With a real model: it does not use this encoding; the heatmap is what the sinusoidal encoding of its width would be.
void model_note(const App& app) {
  const Model& model = app.model;
  if (!model.real) return;
  const RealModel& r = *model.real;
  char width[28], hidden[28];
  format_count(app.params.d_model(), width, sizeof width);
  format_count(r.hidden, hidden, sizeof hidden);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(theme::vec(theme::kLearned),
                     "%s does not use this encoding (it uses %s): this is what Vaswani et al.'s sinusoidal encoding of "
                     "its width d_model = h × d_head = %s would be.%s%s%s",
                     r.name.c_str(), r.info.rope ? "RoPE" : "a learned table", width,
                     r.hidden != app.params.d_model() ? " Its hidden size is " : "",
                     r.hidden != app.params.d_model() ? hidden : "", r.hidden != app.params.d_model() ? "." : "");
  ImGui::PopTextWrapPos();
}

}  // namespace

void show_sinusoidal(App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  char width[28];
  format_count(p.d_model(), width, sizeof width);
  ImGui::PushTextWrapPos(0.0f);  // a phone wraps the formula rather than clip it
  ImGui::TextColored(theme::vec(theme::kRope),
                     "PE[pos, 2i] = sin(pos·θᵢ), PE[pos, 2i+1] = cos(pos·θᵢ), θᵢ = 10000^(−2i/d)");
  ImGui::PopTextWrapPos();
  formula_tip(
      "Vaswani et al. 2017, 3.5: PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = "
      "cos(pos / 10000^(2i/d_model)), added to the token embeddings before the first layer, so its width is the "
      "model's d_model = h × d_head and its base their 10,000. RoPE's θᵢ = base^(−2i/d_head) use the head width and "
      "the model's base instead: the two share frequencies only when d_model = d_head and base = 10,000. Far from 0 "
      "the rows are a window around m, one per position; dims whose angle turns more than π between rows are "
      "hatched. Sinusoidal PE is added to the input once; RoPE rotates Q and K in every layer, so q·k sees only m − "
      "n.");
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled(
      "At the input width d = d_model = h × d_head = %d × %d = %s, base 10,000, as Vaswani et al. add it to the "
      "token embeddings, once. RoPE instead rotates Q and K (width d_head = %d, base %s) in every layer.",
      p.heads, p.d_head, width, p.d_head, format_sig(p.base).c_str());
  ImGui::PopTextWrapPos();
  model_note(app);

  char pe_m[96] = "";
  if (model.sinus_at_m.size() >= 2)
    std::snprintf(pe_m, sizeof pe_m, "PE[m] = (sin, cos)(m·θ₀) = (%s, %s)%s",
                  format_sig(model.sinus_at_m[0], 6).c_str(), format_sig(model.sinus_at_m[1], 6).c_str(),
                  model.sinus_at_m.size() > 2 ? ", ..." : "");
  const char* rows = model.sinus_words.c_str();
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  const float text_w = ImGui::CalcTextSize(pe_m).x + ImGui::CalcTextSize(rows).x;
  const bool one_line = text_w + 2 * ImGui::GetStyle().ItemSpacing.x <= ImGui::GetContentRegionAvail().x;
  const float below = (one_line ? lh : lh + wrapped_height(rows)) + 1.3f * lh;
  const float margin = ImGui::CalcTextSize(format_count((long long)model.sinus_x_end).c_str()).x + 10.0f;
  const HeatFrame f = heat_frame("sinusoidal", std::max(margin, ImGui::CalcTextSize("0000").x), below);
  heatmap(app.ui.gpu.get(), HeatSlot::Sinusoidal, model.sinus, f.a, f.b, -1.0f, 1.0f);
  sinus_marks(p, model, f);
  if (f.hovered && model.sinus.rows > 0) sinus_tooltip(model, f);
  ImGui::TextUnformatted(pe_m);
  same_line_if_fits(ImGui::CalcTextSize(rows).x);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s", rows);
  ImGui::PopTextWrapPos();
  colour_legend("PE", -1.0f, 1.0f, f.width * 0.6f);
}

std::string describe_sinusoidal(const App& app) {
  const Model& model = app.model;
  std::string out = "Sinusoidal panel: Vaswani's sin and cos position encoding over positions " +
                    format_sig(model.sinus_x0) + " to " + format_sig(model.sinus_x_end) +
                    " at the input width d_model = " + format_count(app.params.d_model()) +
                    " with base 10,000, with position m marked; it is added to "
                    "the input once, while RoPE rotates Q and K (width d_head, base " +
                    format_sig(app.params.base) + ") in every layer.";
  if (model.real)
    out += " " + model.real->name + " does not use it (it uses " +
           (model.real->info.rope ? "RoPE" : "a learned table") +
           "): this is what the sinusoidal encoding of its width would be.";
  return out;
}

}  // namespace rv
