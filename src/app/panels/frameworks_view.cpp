// P[m] past the table in other frameworks: a one-line-per-kind summary for the learned table's
// error box, and the full table (P[m], P[-1], P[-m] in every framework) for tooltips.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "app/panels/panel_views.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "core/encodings/frameworks.hpp"
#include "imgui.h"

namespace rv {
namespace {

// Raising is loud and safe; a wrong row, zeros or NaN come back silently: those are the dangerous ones.
ImU32 outcome_colour(const FrameworkLookup& f, long long position) {
  if (f.outcome == LookupOutcome::Error) return theme::kError;
  return f.outcome == LookupOutcome::Row && f.row == position && position >= 0 ? theme::kOk : theme::kLearned;
}

}  // namespace

void frameworks_table(long long position, int max_position) {
  const long long at[3] = {position, -1, -position};
  const int columns = position == 1 || position == 0 ? 2 : 3;  // P[-m] repeats P[-1] or P[m] then
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("frameworks", 1 + columns, flags)) return;
  ImGui::TableSetupColumn("framework (device)", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  char head[3][32];
  for (int c = 0; c < columns; ++c) {
    std::snprintf(head[c], sizeof head[c], "P[%lld]", at[c]);
    ImGui::TableSetupColumn(head[c], ImGuiTableColumnFlags_WidthStretch, 1.0f);
  }
  ImGui::TableHeadersRow();
  const std::vector<FrameworkLookup> rows[3] = {framework_lookups(at[0], max_position),
                                                framework_lookups(at[1], max_position),
                                                framework_lookups(at[2], max_position)};
  for (size_t r = 0; r < rows[0].size(); ++r) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s (%s)", rows[0][r].framework, rows[0][r].device);
    for (int c = 0; c < columns; ++c) {
      const FrameworkLookup& f = rows[c][r];
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, theme::vec(outcome_colour(f, at[c])));
      ImGui::TextWrapped("%s", f.text.c_str());
      ImGui::PopStyleColor();
    }
  }
  ImGui::EndTable();
  ImGui::TextColored(theme::vec(theme::kMuted),
                     "Table of %s. ropeviz raises IndexError for every index outside "
                     "[0, max_position), as nn.Embedding does, in tensor indexing's message format.",
                     plural(max_position, "row", "rows").c_str());
}

void frameworks_tooltip(long long position, int max_position) {
  ImGui::SetNextWindowSize(ImVec2(std::min(ImGui::GetIO().DisplaySize.x * 0.9f, 60.0f * ImGui::GetFontSize()), 0));
  begin_tooltip();
  ImGui::TextUnformatted("The same lookup in other frameworks (PyTorch's tensor indexing is the lesson's):");
  frameworks_table(position, max_position);
  end_tooltip();
}

void frameworks_summary(App& app) {
  const long long position = app.params.position;
  ImGui::TextColored(theme::vec(theme::kMuted), "P[m] elsewhere:");
  bool first = true;
  for (const FrameworkLookup& f : app.model.elsewhere) {
    char item[96];
    const char* colon = f.outcome == LookupOutcome::Error ? std::strchr(f.text.c_str(), ':') : nullptr;
    if (colon)  // the exception's name: "IndexError"
      std::snprintf(item, sizeof item, "%s (%s): %.*s", f.short_name, f.device, int(colon - f.text.c_str()),
                    f.text.c_str());
    else
      std::snprintf(item, sizeof item, "%s (%s): %s", f.short_name, f.device,
                    f.outcome == LookupOutcome::Row     ? f.text.c_str()
                    : f.outcome == LookupOutcome::Zeros ? "zeros, no error"
                                                        : "NaN, no error");
    same_line_if_fits(ImGui::CalcTextSize(item).x + ImGui::GetFontSize());
    if (!first && ImGui::GetCursorPosX() > ImGui::GetStyle().WindowPadding.x + 1.0f) {  // between items on a line
      ImGui::TextDisabled("·");
      ImGui::SameLine();
    }
    first = false;
    ImGui::TextColored(theme::vec(outcome_colour(f, position)), "%s", item);
    if (ImGui::IsItemHovered()) frameworks_tooltip(position, app.params.max_position);
  }
  record_rect(app.ui, "elsewhere");
}

}  // namespace rv
