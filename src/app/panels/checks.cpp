// Panel 6, checks, live for the current settings: norm preservation, the relative property's
// spread across anchors, the lesson's section 3 table (position 5 vs 100, and m) for both methods,
// and every check of core's lesson_checks.
#include <cstdio>

#include "app/format.hpp"
#include "app/model.hpp"
#include "app/panels.hpp"
#include "app/theme.hpp"
#include "app/widgets.hpp"
#include "imgui.h"

namespace rv {
namespace {

void verdict(bool ok) {
  ImGui::TextColored(theme::vec(ok ? theme::ok : theme::error), ok ? "holds" : "fails");
}

void live_checks(const App& app) {
  const Model& m = app.model;
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("live", 3, flags)) return;
  ImGui::TableSetupColumn("claim", ImGuiTableColumnFlags_WidthStretch, 1.6f);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("holds").x + 4);
  ImGui::TableSetupColumn("measured now", ImGuiTableColumnFlags_WidthStretch, 2.0f);
  ImGui::TableHeadersRow();
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted("norm kept: ‖RoPE(x, m)‖ = ‖x‖");
  ImGui::TableNextColumn();
  verdict(m.norm_max_diff < 1e-5);
  ImGui::TableNextColumn();
  ImGui::Text("max |‖RoPE(q,m)‖ − ‖q‖|, |‖RoPE(k,n)‖ − ‖k‖| = %.3g (lesson: < 1e-5)", m.norm_max_diff);
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted("score depends only on m − n");
  ImGui::TableNextColumn();
  verdict(m.relative_spread < 1e-9);
  ImGui::TableNextColumn();
  ImGui::Text("anchors n = %.0f and n + %.0f, r in ±%d: max spread %.3g", m.anchor_a, anchor_shift, app.params.offsets,
              m.relative_spread);
  ImGui::EndTable();
}

void section3_table(const App& app) {
  const Model& m = app.model;
  ImGui::TextColored(theme::vec(theme::muted), "Section 3: position-offset test (max_position = %d)",
                     app.params.max_position);
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchSame;
  if (!ImGui::BeginTable("section3", 4, flags)) return;
  char head[3][48];
  ImGui::TableSetupColumn("method");
  for (int c = 0; c < 3; ++c) {
    std::snprintf(head[c], sizeof head[c], c == 2 ? "m = %lld (now)" : "position %lld", m.probes[c].position);
    ImGui::TableSetupColumn(head[c]);
  }
  ImGui::TableHeadersRow();
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextColored(theme::vec(theme::learned), "Learned absolute");
  for (const Probe& probe : m.probes) {
    ImGui::TableNextColumn();
    ImGui::PushStyleColor(ImGuiCol_Text, theme::vec(probe.learned_ok ? theme::ok : theme::error));
    ImGui::TextWrapped("%s", probe.learned.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextColored(theme::vec(theme::rope), "RoPE");
  for (const Probe& probe : m.probes) {
    ImGui::TableNextColumn();
    ImGui::TextColored(theme::vec(theme::ok), "works: angle %lld·θ₀ = %.6g rad", probe.position, probe.angle0);
  }
  ImGui::EndTable();
}

void core_checks(const App& app) {
  const Model& m = app.model;
  ImGui::TextColored(theme::vec(theme::muted), "The lesson's claims, computed by core (lesson_checks)%s",
                     m.checks_lesson_dims ? " with the lesson's B=2, T=5, h=4 (current tensor too large)" : "");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("core_checks", 3, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("check", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("holds").x + 4);
  ImGui::TableSetupColumn("detail", ImGuiTableColumnFlags_WidthStretch, 2.4f);
  ImGui::TableHeadersRow();
  for (const Check& c : m.checks) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", c.name.c_str());
    ImGui::TableNextColumn();
    verdict(c.ok);
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", c.detail.c_str());
  }
  ImGui::EndTable();
}

}  // namespace

void show_checks(App& app) {
  live_checks(app);
  section3_table(app);
  formula_tip(
      "Train with max_position rows, evaluate at 5 and 100. Learned: P[t] is a table row, so t ≥ max_position "
      "raises IndexError. RoPE: the angle t·θᵢ is a formula, defined at every t.");
  core_checks(app);
}

std::string describe_checks(const App& app) {
  const Model& m = app.model;
  int holds = 0;
  for (const Check& c : m.checks) holds += c.ok;
  const std::string norm = m.norm_max_diff == 0.0 ? "exactly" : "within " + format_sig(m.norm_max_diff, 3);
  return "Checks panel: rotation keeps the norm " + norm + "; " + format_count(holds) + " of " +
         plural((long long)m.checks.size(), "check", "checks") + " of the lesson hold for these settings.";
}

}  // namespace rv
