// Controls: every parameter of Params, each written through set_param so limits and notes apply.
#include <string>

#include "app/export.hpp"
#include "app/panels.hpp"
#include "app/params.hpp"
#include "app/theme.hpp"
#include "app/widgets.hpp"
#include "imgui.h"

namespace rv {
namespace {

// An integer input whose new value goes through set_param (clamping, notes) like a link would.
void int_control(App& app, const char* label, const char* key, long long value, long long step, const char* tip) {
  long long v = value;
  const long long fast = step * 10;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
  if (ImGui::InputScalar(label, ImGuiDataType_S64, &v, &step, &fast, "%lld") && v != value)
    set_param(app.params, key, std::to_string(v), app.ui.notes);
  // the slider owns the name "position"; its exact-value box is "position_input"
  record_rect(app.ui, std::string(key) == "position" ? "position_input" : key);
  formula_tip(tip);
}

void base_control(App& app) {
  double base = app.params.base;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
  if (ImGui::InputDouble("base", &base, 0.0, 0.0, "%.0f", ImGuiInputTextFlags_EnterReturnsTrue) &&
      base != app.params.base)
    set_param(app.params, "base", std::to_string(base), app.ui.notes);
  record_rect(app.ui, "base");
  formula_tip(
      "theta_i = base^(-2i / d_head). 10000 in the original RoPE and Llama 2; 500000 in Llama 3; "
      "1000000 in several long-context models.");
  for (double preset : {10000.0, 500000.0, 1000000.0}) {
    if (preset != 10000.0) ImGui::SameLine();
    std::string label = preset == 10000.0 ? "10k" : preset == 500000.0 ? "500k" : "1M";
    if (ImGui::SmallButton(label.c_str())) set_param(app.params, "base", std::to_string(preset), app.ui.notes);
  }
}

void pairing_control(App& app) {
  int current = app.params.pairing == Pairing::Interleaved ? 0 : 1;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
  if (ImGui::Combo("pairing", &current, "interleaved (Llama)\0half_split (NeoX / HF)\0"))
    app.params.pairing = current == 0 ? Pairing::Interleaved : Pairing::HalfSplit;
  record_rect(app.ui, "pairing");
  formula_tip(
      "Which coordinates rotate together. interleaved: (x[2i], x[2i+1]) as in Meta's Llama "
      "(view_as_complex). half_split: (x[i], x[i + d/2]) as in GPT-NeoX and Hugging Face rotate_half.");
}

// Arrow keys step the position (shift: x10) when no text field has the keyboard.
void position_keys(App& app) {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || ImGui::IsAnyItemActive()) return;
  const long long step = io.KeyShift ? 10 : 1;
  long long m = app.params.position;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) m += step;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) m -= step;
  if (m != app.params.position) set_param(app.params, "position", std::to_string(std::max(0LL, m)), app.ui.notes);
}

// Buttons that hand a file to the platform seam: a download in the browser, a file on the desktop.
void show_exports(App& app) {
  ImGui::Spacing();
  ImGui::TextDisabled("Export");
  struct Item {
    const char* label;
    const char* id;
    ExportFile (*make)(const App&);
  };
  const Item items[] = {{"angles.csv", "export_angles", export_angles_csv},
                        {"score.csv", "export_score", export_score_csv},
                        {"state.json", "export_state", export_state_json}};
  for (const Item& item : items) {
    if (item.make != export_angles_csv) ImGui::SameLine();
    if (ImGui::SmallButton(item.label)) app.ui.pending_export = item.make(app);
    record_rect(app.ui, item.id);
  }
  formula_tip(
      "angles.csv: per pair i, theta_i, m*theta_i, its value mod 2pi, the wavelength and the pairs of q "
      "(before and after RoPE) and k. score.csv: the score against the offset m - n at two anchors. "
      "state.json: everything window.ropeviz.state() reports. Numbers are exact (shortest round-trip).");
  if (ImGui::SmallButton("copy link")) app.ui.pending_copy_link = true;
  record_rect(app.ui, "copy_link");
  formula_tip(
      "Copies a link to this exact view: the page's address in the browser (the view lives in its #hash), "
      "a 'ropeviz --state ...' command on the desktop.");
}

}  // namespace

void show_controls(App& app) {
  Params& p = app.params;
  ImGui::TextColored(theme::vec(theme::rope), "Position");
  long long m = p.position;
  if (position_slider("position", &m, p.max_position, ImGui::GetContentRegionAvail().x, theme::rope))
    set_param(p, "position", std::to_string(m), app.ui.notes);
  record_rect(app.ui, "position");
  position_keys(app);
  int_control(app, "m", "position", p.position, 1,
              "The query's position m. The learned table serves 0 <= m < max_position; RoPE any m >= 0. "
              "Arrow keys step it, shift x10.");
  int_control(app, "n (key)", "key_position", p.key_position, 1, "The key's position n; the score depends on m - n.");

  ImGui::Spacing();
  ImGui::TextColored(theme::vec(theme::learned), "Learned table");
  int_control(app, "max_position", "max_position", p.max_position, 1,
              "Rows of P[max_position, d]: positions 0 .. max_position - 1 exist; any other index raises IndexError.");

  ImGui::Spacing();
  ImGui::TextColored(theme::vec(theme::rope), "RoPE");
  int_control(app, "d_head", "d_head", p.d_head, 2, "Width per head; RoPE rotates d_head / 2 pairs.");
  base_control(app);
  pairing_control(app);

  ImGui::Spacing();
  ImGui::TextDisabled("Shapes");
  int_control(app, "h (heads)", "heads", p.heads, 1, "d = h x d_head");
  int_control(app, "B (batch)", "batch", p.batch, 1, "Sequences processed together.");
  int_control(app, "T (tokens)", "seq_len", p.seq_len, 1, "Tokens per sequence.");
  int_control(app, "V (vocab)", "vocab", p.vocab, 1, "Rows of the token table E[V, d].");
  int_control(app, "seed", "seed", (long long)p.seed, 1, "Seeds P, E, and the example q, k, v.");
  enforce_limits(p, app.ui.notes);
  show_exports(app);
}

void show_notes(App& app) {
  if (app.ui.notes.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, theme::vec(theme::learned));
  for (const std::string& note : app.ui.notes) ImGui::TextWrapped("Note: %s", note.c_str());
  ImGui::PopStyleColor();
  if (ImGui::SmallButton("Dismiss notes")) app.ui.notes.clear();
}

}  // namespace rv
