// Comparison and judgment: the lesson's sections 4 and 5 as tables, with the values that
// depend on the settings (parameter counts, whether position m is served) filled in live.
#include <cstdio>

#include "app/state/state.hpp"
#include "app/run/rope_verdict.hpp"
#include "app/ui/theme.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

struct Row3 {
  const char* a;
  const char* b;
  const char* c;
};

void row(const char* a, const char* b, const char* c, ImU32 cb = 0, ImU32 cc = 0) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextWrapped("%s", a);
  ImGui::TableNextColumn();
  if (cb) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(cb));
  ImGui::TextWrapped("%s", b);
  if (cb) ImGui::PopStyleColor();
  ImGui::TableNextColumn();
  if (cc) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(cc));
  ImGui::TextWrapped("%s", c);
  if (cc) ImGui::PopStyleColor();
}

// A table as tall as its rows: the panel scrolls as a whole, so no row is hidden inside a scrolling table.
bool begin_table(const char* id, const char* a, const char* b, const char* c, float wb, float wc) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable(id, 3, flags)) return false;
  ImGui::TableSetupColumn(a, ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn(b, ImGuiTableColumnFlags_WidthStretch, wb);
  ImGui::TableSetupColumn(c, ImGuiTableColumnFlags_WidthStretch, wc);
  ImGui::TableHeadersRow();
  return true;
}

const Row3 section4[] = {
    {"Mechanism", "Add learned vector P[t] to the token embedding", "Rotate Q/K pairs by m·θᵢ per pair"},
    {"Where applied", "Input embedding layer (before the blocks)", "Inside attention, on Q and K only"},
    {"Position info", "Absolute: each position has its own vector", "Relative: the score depends on m − n"},
    {"V affected?", "No", "No (Q/K only)"},
    {"Shape change", "None: [B, T, d] -> [B, T, d]", "None: [B, T, h, d_head] -> [B, T, h, d_head]"},
};

const Row3 section5[] = {
    {"Positional method for a decoder-only generation model?", "RoPE",
     "No parameters, relative scores, defined at every position; a model trained on L positions still degrades "
     "past L unless its frequencies are rescaled (Chen et al. 2023; Run it measures one)."},
    {"When is learned absolute acceptable?", "Fixed max length (classification, fixed-input tasks)",
     "Simple; each position learns its own vector; but fails if the sequence exceeds max_position."},
    {"Does RoPE need KV-cache changes?", "No", "RoPE is applied to Q/K before caching; cached keys carry position."},
    {"Should V be rotated?", "No", "Values carry content, not position."},
    {"What if context length doubles at inference?", "RoPE computes every angle; a learned table has no rows",
     "Formula: defined anywhere. Trained: loss climbs past L (llama-bytes, L = 512: 1.14 to 4.25) unless rescaled "
     "(Llama 3 x4: 1.28; linear x4 needs fine-tuning). A learned table needs more rows and retraining."},
};

}  // namespace

void show_comparison(App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  ImGui::TextColored(theme::vec(theme::kMuted), "Section 4: learned absolute vs RoPE (live rows first)");
  if (begin_table("section4", "", "Learned absolute", "RoPE", 1.6f, 1.6f)) {
    char learned[96], rope[96], served[160], at[48], rows[28], width[28], count[28];
    std::snprintf(learned, sizeof learned, "max_position × d = %s × %s = %s (learned)",
                  format_count(p.max_position, rows, sizeof rows), format_count(p.d_model(), width, sizeof width),
                  format_count(learned_param_count(p.max_position, p.d_model()), count, sizeof count));
    std::snprintf(rope, sizeof rope, "0 (fixed formula, θᵢ = %.6g^(-2i/%d))", p.base, p.d_head);
    row("Parameters", learned, rope, theme::kLearned, theme::kRope);
    std::snprintf(at, sizeof at, "At m = %s", format_count(p.position, count, sizeof count));
    if (model.lookup_error)
      std::snprintf(served, sizeof served, "%s", model.lookup_message.c_str());
    else
      std::snprintf(served, sizeof served, "served: row P[m], width d = %d", p.d_model());
    // RoPE at m: the formula rotates; the trained model's side is the status strip's (measured where Run it was).
    static RopeVerdict verdict;  // filled in place: no allocation per frame
    rope_verdict(app, verdict);
    char rope_at[400];
    std::snprintf(rope_at, sizeof rope_at, "formula: rotates every pair by m·θᵢ; %s", verdict.trained);
    row(at, served, rope_at, model.lookup_error ? theme::kError : theme::kOk,
        verdict.kind == RopeVerdictKind::InContext ? theme::kOk
        : verdict.kind == RopeVerdictKind::NotUsed ? theme::kMuted
                                                   : theme::kCaution);
    std::snprintf(learned, sizeof learned, "Fails beyond max_position - 1 = %s",
                  format_count(p.max_position - 1, rows, sizeof rows));
    row("Extrapolation", learned,
        "Formula: defined at any position. Trained on L positions: degrades past L unless rescaled (Run it: "
        "llama-bytes 3.7x at 2L-4L)",
        theme::kLearned, theme::kRope);
    for (const Row3& r : section4) row(r.a, r.b, r.c);
    ImGui::EndTable();
  }
  ImGui::TextColored(theme::vec(theme::kMuted), "Section 5: engineering judgment");
  if (begin_table("section5", "Question", "Recommendation", "Rationale", 1.1f, 2.8f)) {
    for (const Row3& r : section5) row(r.a, r.b, r.c, theme::kRope);
    ImGui::EndTable();
  }
}

std::string describe_comparison(const App& app) {
  const Params& p = app.params;
  return "Comparison panel: learned absolute positions cost " +
         format_count(learned_param_count(p.max_position, p.d_model())) + " parameters and " +
         (app.model.lookup_error ? "cannot serve" : "serve") + " position " + format_count(p.position) +
         "; RoPE costs 0 parameters, is relative in the dot product and is defined at every position (for the formula; "
         "a "
         "model trained on L positions still degrades past L without context extension).";
}

}  // namespace rv
