// Why rotation, not addition (lesson 3.3): the same q given position m two ways, a position vector added (Vaswani's
// sinusoidal PE at width d_head) and RoPE's rotation, side by side: pair 0 drawn on its circle, the norms, and the
// dot products with k at n, also with both positions moved by the same shift. Numbers from core (add_vs_rotate).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

// Pair 0 of q (faint), q + PE(m) (amber) and RoPE(q, m) (teal), with the circle of q's length: rotating keeps the
// tip on it, adding moves it off.
void pair_picture(const AddVsRotate& w, float size) {
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(size, size));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 c(p0.x + size * 0.5f, p0.y + size * 0.5f);
  const double reach = std::max({w.q_pair.norm(), w.added_pair.norm(), w.rotated_pair.norm(), 1e-12});
  const float scale = float((size * 0.5f - 8.0f) / reach);
  const auto tip = [&](const Eigen::Vector2d& v) {
    return ImVec2(c.x + scale * float(v.x()), c.y - scale * float(v.y()));
  };
  dl->AddCircle(c, scale * float(w.q_pair.norm()), theme::kGrid, 64, 1.0f);
  dl->AddLine(ImVec2(p0.x, c.y), ImVec2(p0.x + size, c.y), theme::kGrid & 0x60FFFFFF);
  dl->AddLine(ImVec2(c.x, p0.y), ImVec2(c.x, p0.y + size), theme::kGrid & 0x60FFFFFF);
  dl->AddLine(c, tip(w.q_pair), theme::kMuted, 1.5f);
  dl->AddLine(c, tip(w.added_pair), theme::kLearned, 2.5f);
  dl->AddCircleFilled(tip(w.added_pair), 4.0f, theme::kLearned);
  dl->AddLine(c, tip(w.rotated_pair), theme::kRope, 2.5f);
  dl->AddCircleFilled(tip(w.rotated_pair), 4.0f, theme::kRope);
}

void row(const char* what, double added, double rotated, const char* note) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(what);
  ImGui::TableNextColumn();
  ImGui::TextColored(theme::vec(theme::kLearned), "%.6g", added);
  ImGui::TableNextColumn();
  ImGui::TextColored(theme::vec(theme::kRope), "%.6g", rotated);
  ImGui::TableNextColumn();
  ImGui::TextDisabled("%s", note);
}

void numbers(const App& app) {
  const AddVsRotate& w = app.model.why;
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("why", 4, flags)) return;
  ImGui::TableSetupColumn("");
  ImGui::TableSetupColumn("q + PE(m)");
  ImGui::TableSetupColumn("RoPE(q, m)");
  ImGui::TableSetupColumn("");
  ImGui::TableHeadersRow();
  char note[64];
  std::snprintf(note, sizeof note, "‖q‖ = %.6g", w.norm_q);
  row("length", w.norm_added, w.norm_rotated, note);
  std::snprintf(note, sizeof note, "⟨q, k⟩ = %.6g", w.dot_plain);
  row("score with k at n", w.dot_added, w.dot_rotated, note);
  std::snprintf(note, sizeof note, "m, n both + %.0f", w.shift);
  row("both moved", w.dot_added_shifted, w.dot_rotated_shifted, note);
  row("score change", w.dot_added_shifted - w.dot_added, w.dot_rotated_shifted - w.dot_rotated,
      "RoPE: none, m − n is the same");
  ImGui::EndTable();
}

}  // namespace

void show_why_rotation(App& app) {
  const Params& p = app.params;
  ImGui::TextWrapped(
      "The same q given position m = %lld two ways (k at n = %lld). Adding a position vector changes "
      "q's length and makes the score depend on where m and n are; rotating keeps the length and leaves "
      "a score that depends on m − n alone.",
      p.position, p.key_position);
  formula_tip(
      "PE(t) is Vaswani et al.'s sinusoidal encoding at width d_head, PE(t, 2i) = sin(t / base^(2i/d_head)), "
      "PE(t, 2i+1) = cos(...), added to q (and k). RoPE(q, m) rotates pair i by m·θᵢ. A rotation is an isometry: "
      "‖RoPE(q, m)‖ = ‖q‖ (lesson 3.3), and ⟨RoPE(q, m), RoPE(k, n)⟩ depends on m − n only. The picture is pair 0: "
      "faint q, amber q + PE(m), teal RoPE(q, m), and the circle of q's length.");
  const float size = std::min(ImGui::GetContentRegionAvail().y, ImGui::GetContentRegionAvail().x * 0.35f);
  pair_picture(app.model.why, std::max(size, 40.0f));
  ImGui::SameLine();
  ImGui::BeginGroup();
  numbers(app);
  ImGui::EndGroup();
}

std::string describe_why_rotation(const App& app) {
  const AddVsRotate& w = app.model.why;
  return "Rotation against addition panel: ‖q‖ = " + format_sig(w.norm_q) + "; adding PE(m) gives length " +
         format_sig(w.norm_added) + ", rotating gives " + format_sig(w.norm_rotated) + ". Score with k: added " +
         format_sig(w.dot_added) + ", rotated " + format_sig(w.dot_rotated) + "; with both positions moved by " +
         format_sig(w.shift) + ": added " + format_sig(w.dot_added_shifted) + ", rotated " +
         format_sig(w.dot_rotated_shifted) + ".";
}

}  // namespace rv
