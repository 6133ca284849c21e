// The status strip above the panels, the lesson's section 3 in a few lines: RoPE at m for the formula and for a
// trained model, and the learned table's lookup at m (or its IndexError, in a red bar, other frameworks on hover).
#include <algorithm>
#include <cstdio>
#include <string>

#include "app/panels/panel_views.hpp"
#include "app/run/rope_verdict.hpp"
#include "app/shell/shell.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {

void show_position_test(App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  if (!app.ui.narrow) {  // a phone's controls are a sheet with its own button
    if (ImGui::SmallButton(app.ui.controls_open ? "<<" : ">>")) app.ui.controls_open = !app.ui.controls_open;
    if (ImGui::IsItemHovered()) tooltip(app.ui.controls_open ? "hide the controls" : "show the controls");
    ImGui::SameLine();
  }
  char at_m[28], at_n[28], offset[28];
  ImGui::Text("m = %s   n = %s   m − n = %s", format_count(p.position, at_m, sizeof at_m),
              format_count(p.key_position, at_n, sizeof at_n),
              format_count(p.position - p.key_position, offset, sizeof offset));
  // RoPE at m: the formula's line, then what holds for a model trained to the context (measured where Run it was).
  static RopeVerdict verdict;  // filled in place each frame: no allocation
  rope_verdict(app, verdict);
  same_line_if_fits(ImGui::CalcTextSize(verdict.formula).x + 16.0f);
  ImGui::PushTextWrapPos(0.0f);  // wrapped on a phone; the trained line has a line of its own (a steady height)
  ImGui::TextColored(theme::vec(theme::kRope), "%s", verdict.formula);
  const ImU32 colour = verdict.kind == RopeVerdictKind::InContext ? theme::kOk
                       : verdict.kind == RopeVerdictKind::NotUsed ? theme::kMuted
                                                                  : theme::kCaution;
  ImGui::TextColored(theme::vec(colour), "%s", verdict.trained);
  ImGui::PopTextWrapPos();
  // The learned table's line, wrapped to the width: in a red box when the lookup fails (other frameworks on hover).
  // A RoPE model has no table: the line is about the one its context would need, as the Learned table panel says.
  char text[400], rows[28], hypothetical[200] = "";
  format_count(p.max_position, rows, sizeof rows);
  if (model.real && !model.real->info.absolute)
    std::snprintf(hypothetical, sizeof hypothetical,
                  " (hypothetical: %s has no such table, RoPE adds 0 parameters; this is the table its %s-position "
                  "context would need)",
                  model.real->name.c_str(), rows);
  if (model.lookup_error)
    std::snprintf(text, sizeof text, "Learned table%s: %s", hypothetical, model.lookup_message.c_str());
  else
    std::snprintf(text, sizeof text, "Learned table%s: %s m = %s with row P[%lld] of %s %s, width d = %d", hypothetical,
                  hypothetical[0] ? "would serve" : "serves", format_count(p.position, at_m, sizeof at_m), p.position,
                  rows, p.max_position == 1 ? "row" : "rows", p.d_model());
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x, pad = 6.0f;
  const float h = ImGui::CalcTextSize(text, nullptr, false, w - 2 * pad).y + ImGui::GetStyle().ItemSpacing.y + 2.0f;
  if (model.lookup_error) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p0, ImVec2(p0.x + w, p0.y + h), IM_COL32(90, 22, 26, 255), 3.0f);
    dl->AddRect(p0, ImVec2(p0.x + w, p0.y + h), theme::kError, 3.0f, 0, 2.0f);
    if (ImGui::IsMouseHoveringRect(p0, ImVec2(p0.x + w, p0.y + h)) && ImGui::IsWindowHovered())
      frameworks_tooltip(p.position, p.max_position);
  }
  ImGui::SetCursorScreenPos(ImVec2(p0.x + pad, p0.y + 2));
  ImGui::PushTextWrapPos(ImGui::GetCursorPos().x + w - 2 * pad);
  ImGui::TextColored(theme::vec(model.lookup_error ? theme::kError : theme::kLearned), "%s", text);
  ImGui::PopTextWrapPos();
  app.ui.rects["lookup"] = Rect{p0.x, p0.y, w, h};  // the line's box (tests: it fits the window)
  ImGui::SetCursorScreenPos(ImVec2(p0.x, p0.y + h + 2));
  ImGui::Dummy(ImVec2(0, 0));
}

}  // namespace rv
