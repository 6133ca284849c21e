// Compare models: every preset side by side (base, head and rotated dims, pairing, scaling, context, critical
// dimension, first negative cosine sum, learned-table cost), from core; a click opens one; exportable as CSV.
#include <string>

#include "app/state/export.hpp"
#include "app/state/model.hpp"
#include "app/state/params.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

constexpr const char* kColumns[] = {"model",        "base",        "head dim",     "rotated",
                                    "pairing",      "scaling",     "context",      "before extension",
                                    "critical dim", "B(m) < 0 at", "learned table"};

void cell(const std::string& text, ImU32 colour = 0) {
  ImGui::TableNextColumn();
  if (colour) ImGui::PushStyleColor(ImGuiCol_Text, theme::vec(colour));
  ImGui::TextUnformatted(text.c_str());
  if (colour) ImGui::PopStyleColor();
}

void row(App& app, const CatalogRow& r) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  if (ImGui::Selectable(r.name.c_str(), app.params.model == r.name, ImGuiSelectableFlags_SpanAllColumns))
    set(app.params, keys::model, r.name, app.ui.notes);
  if (ImGui::IsItemHovered()) tooltip("%s\nclick: open this model", r.source.c_str());
  if (!r.info) {
    cell(r.error, theme::kError);
    return;
  }
  if (const auto& table = r.info->absolute) {
    for (const char* text : {"—", "—", "—", "—", "learned"}) cell(text, theme::kMuted);
    cell(format_count(table->max_position), theme::kLearned);
    for (int i = 0; i < 3; ++i) cell("—", theme::kMuted);
    cell(format_count(table->parameters), theme::kLearned);
    return;
  }
  const RopeModel& rope = *r.info->rope;
  const ContextBudget& b = r.budget;
  cell(format_sig(rope.base));
  cell(format_count(rope.head_dim));
  cell(format_count(rope.rotary_dims), rope.rotary_dims < rope.head_dim ? theme::kKey : 0);
  cell(pairing_name(rope.pairing));
  cell(r.scaling, r.scaling == "none" ? theme::kMuted : theme::kLearned);
  cell(format_count(b.context));
  if (b.original)
    cell(format_count(b.original), theme::kKey);
  else
    cell("—", theme::kMuted);
  cell(format_count(b.critical_dim));
  cell(b.first_negative_m ? format_count(*b.first_negative_m) : "> " + format_count(b.search_limit),
       b.first_negative_m && *b.first_negative_m <= b.context ? theme::kLearned : theme::kOk);
  cell("0 (" + format_count(b.learned_parameters) + ")", theme::kOk);
}

}  // namespace

void show_models(App& app) {
  const std::vector<CatalogRow>& rows = model_catalog(app.model);
  ImGui::TextDisabled("%s presets from their published config.json; click a row to open it.",
                      format_count((long long)rows.size()).c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("models.csv")) app.ui.pending_exports = {export_models_csv(app, rows)};
  record_rect(app.ui, "export_models");
  formula_tip(
      "context: max_position_embeddings; before extension: original_max_position_embeddings, the length the model had "
      "before its context was extended. Neither is necessarily the length it was trained at. critical dim: "
      "2·ceil((d/2)·ln(L/2π)/ln(base)), unscaled θᵢ, L the length before extension, else the context (Liu et al. "
      "2023). B(m) < 0 at: the "
      "first m with Σᵢ cos(m θᵢ) < 0 (Men et al. 2024), amber when inside the context. learned table: RoPE's 0 "
      "parameters, and in brackets what a learned table of the context would hold (context × hidden size). "
      "rotated in violet: only part of each head rotates.");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("models", int(std::size(kColumns)), flags, ImGui::GetContentRegionAvail())) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  for (const char* name : kColumns) ImGui::TableSetupColumn(name);
  ImGui::TableHeadersRow();
  for (const CatalogRow& r : rows) row(app, r);
  ImGui::EndTable();
}

std::string describe_models(const App& app) {
  const std::size_t n = app.model.catalog.size();
  return "Compare models panel: a table of " + (n ? format_count((long long)n) + " " : std::string()) +
         "real models with their RoPE base, head and rotated dimensions, pairing, scaling, context, critical "
         "dimension, first negative cosine sum and learned-table cost.";
}

}  // namespace rv
