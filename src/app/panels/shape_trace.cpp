// The shape trace: the lesson's dims table and every step's shape, live, from token ids
// through E + P to Q/K/V, the complex view, freqs_cis and its broadcast, Q_rope and K_rope, with V
// untouched; and the parameter counts of each method.
#include <cstdio>

#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

// "[2, 5, 4, 8]" into buf, no allocation.
const char* shape_text(const std::vector<long long>& shape, char* buf, size_t size) {
  size_t n = size_t(std::snprintf(buf, size, "["));
  for (size_t i = 0; i < shape.size() && n < size; ++i)
    n += size_t(std::snprintf(buf + n, size - n, i ? ", %lld" : "%lld", shape[i]));
  if (n < size) std::snprintf(buf + n, size - n, "]");
  return buf;
}

ImU32 step_colour(const std::string& name) {
  if (name.rfind("V", 0) == 0) return theme::kMuted;
  if (name.find('P') != std::string::npos || name.rfind("E", 0) == 0 || name == "token_ids") return theme::kLearned;
  return theme::kRope;
}

void dims_table(const Params& p) {
  if (!ImGui::BeginTable("dims", 7, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchSame)) return;
  const char* names[7] = {"B", "T", "h", "d_head", "d = h·d_head", "V", "max_position"};
  for (const char* n : names) ImGui::TableSetupColumn(n);
  ImGui::TableHeadersRow();
  ImGui::TableNextRow();
  const long long values[7] = {p.batch, p.seq_len, p.heads, p.d_head, p.d_model(), p.vocab, p.max_position};
  for (long long v : values) {
    ImGui::TableNextColumn();
    ImGui::Text("%lld", v);
  }
  ImGui::EndTable();
}

}  // namespace

void show_shape_trace(App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  dims_table(p);
  ImGui::Text("Parameters:");
  ImGui::SameLine();
  char count[28];
  ImGui::TextColored(theme::vec(theme::kLearned), "P = max_position × d = %s",
                     format_count(model.counts.learned_position, count, sizeof count));
  ImGui::SameLine();
  ImGui::TextColored(theme::vec(theme::kRope), "  RoPE = %s", format_count(model.counts.rope, count, sizeof count));
  ImGui::SameLine();
  ImGui::TextDisabled("  (E = V × d = %s, both)", format_count(model.counts.token_embedding, count, sizeof count));
  formula_tip(
      "Learned absolute adds a [max_position, d] table; RoPE adds nothing: θᵢ = base^(-2i/d_head) is a formula.");

  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("trace", 3, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn("shape", ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn("why", ImGuiTableColumnFlags_WidthStretch, 2.2f);
  ImGui::TableHeadersRow();
  char buf[96];
  for (const ShapeStep& s : model.shapes) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(theme::vec(step_colour(s.name)), "%s", s.name.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(shape_text(s.shape, buf, sizeof buf));
    ImGui::TableNextColumn();
    const bool overflow = s.name == "P[positions]" && p.seq_len > p.max_position;
    if (overflow)
      ImGui::TextColored(theme::vec(theme::kError),
                         "IndexError: T = %d > max_position = %d (index %d is out of bounds)", p.seq_len,
                         p.max_position, p.max_position);
    else
      ImGui::TextWrapped("%s", s.note.c_str());
  }
  ImGui::EndTable();
}

std::string describe_shape_trace(const App& app) {
  std::string s = "Shape trace panel: ";
  for (const ShapeStep& step : app.model.shapes) s += step.name + " " + shape_str(step.shape) + "; ";
  const ParamCounts& c = app.model.counts;
  return s + "parameters: token embedding " + format_count(c.token_embedding) + ", learned positions " +
         format_count(c.learned_position) + ", RoPE " + format_count(c.rope) + ".";
}

}  // namespace rv
