// Checks, live for the current settings: norm preservation, the relative property's
// spread across anchors, the lesson's section 3 table (in range, last row, past the table, and m) for both methods,
// and every check of core's lesson_checks.
#include <cstdio>

#include "app/state/model.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

void verdict(bool ok) {
  ImGui::TextColored(theme::vec(ok ? theme::kOk : theme::kError), ok ? "holds" : "fails");
}

void live_checks(const App& app) {
  const Model& model = app.model;
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
  verdict(model.norm_max_diff < 1e-5);
  ImGui::TableNextColumn();
  ImGui::Text("max |‖RoPE(q,m)‖ − ‖q‖|, |‖RoPE(k,n)‖ − ‖k‖| = %.3g (lesson: < 1e-5)", model.norm_max_diff);
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted("score depends only on m − n");
  ImGui::TableNextColumn();
  verdict(model.relative_spread < 1e-9);
  ImGui::TableNextColumn();
  ImGui::Text("anchors n = %.0f and n + %.0f, r in ±%d: max spread %.3g", model.anchor_a, kAnchorShift,
              app.params.offsets, model.relative_spread);
  ImGui::EndTable();
}

void section3_table(const App& app) {
  const Model& model = app.model;
  ImGui::TextColored(theme::vec(theme::kMuted), "Section 3: position-offset test on the app's table [%d, d = %d]",
                     app.params.max_position, app.params.d_model());
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchSame;
  if (!ImGui::BeginTable("section3", 1 + Model::kProbeCount, flags)) return;
  char head[Model::kProbeCount][64];
  ImGui::TableSetupColumn("method");
  for (int c = 0; c < Model::kProbeCount; ++c) {
    // probes: a row inside, the last row, the first past the end (see probe_positions), then m
    std::snprintf(head[c], sizeof head[c], c + 1 == Model::kProbeCount ? "m = %lld" : "P[%lld]",
                  model.probes[c].position);
    ImGui::TableSetupColumn(head[c]);
  }
  ImGui::TableHeadersRow();
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::PushStyleColor(ImGuiCol_Text, theme::vec(theme::kLearned));
  ImGui::TextWrapped("Learned absolute");
  ImGui::PopStyleColor();
  for (const Probe& probe : model.probes) {
    ImGui::TableNextColumn();
    // A row that exists is served; past the table the IndexError is the expected answer (the lesson's point),
    // shown in the learned colour. Red only if the table behaved otherwise: a real defect.
    const ImU32 colour = !probe.holds() ? theme::kError : probe.learned_ok ? theme::kOk : theme::kLearned;
    ImGui::PushStyleColor(ImGuiCol_Text, theme::vec(colour));
    if (probe.holds() && !probe.learned_ok)
      ImGui::TextWrapped("fails, as expected: %s", probe.learned.c_str());
    else
      ImGui::TextWrapped("%s%s", probe.holds() ? "works: " : "DEFECT: ", probe.learned.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextColored(theme::vec(theme::kRope), "RoPE");
  for (const Probe& probe : model.probes) {
    ImGui::TableNextColumn();
    ImGui::PushStyleColor(ImGuiCol_Text, theme::vec(theme::kOk));
    // angle0 = position * theta_0 (theta_0 is 1): written out as a person would, 1,000,000 not 1e+06
    ImGui::TextWrapped("formula works: angle %lld·θ₀ = %s rad", probe.position, format_sig(probe.angle0, 15).c_str());
    ImGui::PopStyleColor();
  }
  ImGui::EndTable();
}

void core_checks(const App& app) {
  const Model& model = app.model;
  ImGui::TextColored(theme::vec(theme::kMuted), "The lesson's claims, computed by core (lesson_checks)%s",
                     model.checks_lesson_dims ? " with the lesson's B=2, T=5, h=4 (current tensor too large)" : "");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("core_checks", 3, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("check", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("holds").x + 4);
  ImGui::TableSetupColumn("detail", ImGuiTableColumnFlags_WidthStretch, 2.4f);
  ImGui::TableHeadersRow();
  for (const Check& c : model.checks) {
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
      "The lesson trains with max_position = 10 rows and evaluates at 5 and 100. Here the probes follow the table: "
      "a row inside it, its last row max_position − 1, and a position past it. Learned: P[t] is a table row, so "
      "t ≥ max_position raises IndexError. RoPE: the angle t·θᵢ is a formula, defined at every t. The app's table "
      "is [max_position, d] with d = h × d_head; core's checks below use the lesson's [max_position, d_head].");
  core_checks(app);
}

std::string describe_checks(const App& app) {
  const Model& model = app.model;
  int holds = 0;
  for (const Check& c : model.checks) holds += c.ok;
  const std::string norm = model.norm_max_diff == 0.0 ? "exactly" : "within " + format_sig(model.norm_max_diff, 3);
  return "Checks panel: rotation keeps the norm " + norm + "; " + format_count(holds) + " of " +
         plural((long long)model.checks.size(), "check", "checks") + " of the lesson hold for these settings.";
}

}  // namespace rv
