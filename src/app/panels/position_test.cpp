// The lesson's section 3, live: the learned table's lookup at m (or its IndexError) beside
// RoPE's theta_i and angle m * theta_i, which exist at every position.
#include <cmath>
#include <string>

#include "app/panels.hpp"
#include "app/report.hpp"
#include "app/theme.hpp"
#include "app/widgets.hpp"
#include "imgui.h"

namespace rv {
namespace {

constexpr int row_values_shown = 8;
constexpr double two_pi = 6.283185307179586476925286766559;

void show_learned_lookup(const App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  ImGui::TextColored(theme::vec(theme::learned), "Learned absolute (GPT-2): P[%d, %d]", p.max_position, p.d_model());
  formula_tip("embedding[t] = E[token_id[t]] + P[t]. P is a learned [max_position, d] table; position t indexes "
              "row P[t], an O(1) lookup that exists only for 0 <= t < max_position.");
  if (m.lookup_error) {
    error_box("Position not in the table", m.lookup_error->full());
    return;
  }
  std::string values;
  const int shown = std::min<int>(row_values_shown, int(m.row->size()));
  for (int j = 0; j < shown; ++j) values += (j ? ", " : "") + format_sig((*m.row)[j], 4);
  ImGui::TextWrapped("P[%lld] = [%s%s]   shape [%d]", p.position, values.c_str(),
                     shown < m.row->size() ? ", ..." : "", p.d_model());
  ImGui::TextColored(theme::vec(theme::ok), "Served: row %lld of %d.", p.position, p.max_position);
}

void show_rope_angles(const App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  ImGui::TextColored(theme::vec(theme::rope), "RoPE (Llama 2): %d pairs, 0 parameters", int(m.inv_freq.size()));
  formula_tip("theta_i = base^(-2i/d_head); pair i of Q and K is rotated by m * theta_i:\n"
              "x' = x cos(m theta_i) - y sin(m theta_i)\ny' = x sin(m theta_i) + y cos(m theta_i)");
  ImGui::TextColored(theme::vec(theme::ok), "Works at m = %lld: the angle is a formula, not a table row.",
                     p.position);
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingStretchProp;
  const float rows_visible = float(std::min<int>(int(m.inv_freq.size()), 8)) + 1.5f;
  if (!ImGui::BeginTable("rope_angles", 5, flags, ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * rows_visible)))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("pair i");
  ImGui::TableSetupColumn("θᵢ");
  ImGui::TableSetupColumn("m·θᵢ (rad)");
  ImGui::TableSetupColumn("mod 2π");
  ImGui::TableSetupColumn("wavelength 2π/θᵢ");
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(int(m.inv_freq.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", i);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_sig(m.inv_freq[i]).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_sig(m.angles[i], 8).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_sig(std::fmod(m.angles[i], two_pi), 6).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_sig(two_pi / m.inv_freq[i], 6).c_str());
    }
  }
  ImGui::EndTable();
}

}  // namespace

void show_position_test(App& app) {
  ImGui::Text("Position m = %lld", app.params.position);
  ImGui::Separator();
  show_learned_lookup(app);
  ImGui::Spacing();
  show_rope_angles(app);
}

}  // namespace rv
