// The learned absolute table: P[max_position, d] as a shader heatmap with a diverging
// colour legend, the row for position m highlighted, and embedding = E[token] + P[t] with its shape
// [B, T, d]. Past the table, the missing row is drawn where it would be and the IndexError shown.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/panels/panel_views.hpp"
#include "app/state/model.hpp"
#include "app/state/weights.hpp"
#include "app/ui/heatmap.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

// x (from the window's left edge) where the strips start, after their labels.
float ghost_height(float h) {
  return std::max(3.4f * ImGui::GetTextLineHeight(), h * 0.28f);
}

float strip_x() {
  return ImGui::GetStyle().WindowPadding.x + ImGui::CalcTextSize("E[token]").x + 12.0f;
}

// n values read through at(j) as a strip of cells at p, w x h (signed block max-abs when wider than w / 2).
template <class At>
void draw_strip(ImDrawList* dl, ImVec2 p, float w, float h, int n, double absmax, const At& at) {
  const BlockSteps s = block_steps(1, n, 1, int(w / 2.0f));
  const int cells = (n + s.cols - 1) / s.cols;
  for_each_block_maxabs([&](int, int j) { return at(j); }, 1, n, s,
                        [&](int, int c, double x) {
                          dl->AddRectFilled(ImVec2(p.x + w * c / cells, p.y),
                                            ImVec2(p.x + w * (c + 1) / cells, p.y + h), diverging(float(x / absmax)));
                        });
}

// One row of values as a strip of cells (block max-abs when wider than the strip).
void value_strip(const char* label, const double* v, int n, double absmax, float width, ImU32 accent) {
  const float h = ImGui::GetTextLineHeight();
  ImGui::TextColored(theme::vec(accent), "%s", label);
  ImGui::SameLine(strip_x());
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float w = std::max(20.0f, width - (p.x - ImGui::GetWindowPos().x));
  ImGui::Dummy(ImVec2(w, h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (!v) {
    dl->AddRect(p, ImVec2(p.x + w, p.y + h), theme::kError);
    dl->AddText(ImVec2(p.x + 4, p.y), theme::kError, "no row: IndexError");
    return;
  }
  draw_strip(dl, p, w, h, n, absmax, [&](int j) { return v[j]; });
  if (ImGui::IsItemHovered() && ImGui::IsMousePosValid()) {  // not a keyboard focus: a mouse over it
    const int j = std::clamp(int((ImGui::GetIO().MousePos.x - p.x) / w * n), 0, n - 1);
    tooltip("%s[%d] = %.8g", label, j, v[j]);
  }
}

void draw_table(App& app, ImVec2 p0, ImVec2 size) {
  const Params& p = app.params;
  const Model& model = app.model;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const bool missing = model.lookup_error.has_value();
  const float lh = ImGui::GetTextLineHeight();
  // Past the table, the bottom strip stands for the row that would be needed.
  const float ghost_h = missing ? ghost_height(size.y) : 0.0f;
  const ImVec2 a(p0.x, p0.y), b(p0.x + size.x, p0.y + size.y - ghost_h);
  const float absmax = float(std::max(1e-12, model.table_absmax));
  heatmap(app.ui.gpu.get(), HeatSlot::Table, model.table_img, a, b, -absmax, absmax);
  dl->AddRect(a, b, theme::kLearned & 0x90FFFFFF);
  const float row_h = (b.y - a.y) / float(p.max_position);
  if (!missing) {
    const float y = a.y + row_h * float(p.position);
    dl->AddRect(ImVec2(a.x - 3, y - 1), ImVec2(b.x + 3, y + std::max(2.0f, row_h) + 1), IM_COL32_WHITE, 0, 0, 2.0f);
  } else {
    const float gy = b.y + lh * 0.4f;
    const long long gap = p.position - p.max_position;
    char buf[160], count[28], row[28];
    std::snprintf(buf, sizeof buf, "≈ %s %s", format_count(gap, count, sizeof count),
                  gap == 1 ? "row that does not exist" : "rows that do not exist");
    if (gap > 0) dl->AddText(ImVec2(a.x + 6, b.y + 1), theme::kMuted, buf);
    const ImVec2 ga(a.x, gy + lh * 0.7f), gb(b.x, p0.y + size.y - 2);
    for (float x = ga.x; x < gb.x; x += 12.0f) {  // dashed outline of the missing row
      dl->AddLine(ImVec2(x, ga.y), ImVec2(std::min(x + 6.0f, gb.x), ga.y), theme::kError, 2.0f);
      dl->AddLine(ImVec2(x, gb.y), ImVec2(std::min(x + 6.0f, gb.x), gb.y), theme::kError, 2.0f);
    }
    dl->AddLine(ga, ImVec2(ga.x, gb.y), theme::kError, 2.0f);
    dl->AddLine(ImVec2(gb.x, ga.y), gb, theme::kError, 2.0f);
    std::snprintf(buf, sizeof buf, "P[%lld] would be here: row %s of a %s-row table", p.position,
                  format_count(p.position, row, sizeof row), format_count(p.max_position, count, sizeof count));
    dl->AddText(ImVec2(ga.x + 8, 0.5f * (ga.y + gb.y) - lh * 0.5f), theme::kError, buf);
  }
  if (ImGui::IsMouseHoveringRect(a, b) && ImGui::IsWindowHovered()) {
    const ImVec2 mp = ImGui::GetIO().MousePos;
    const int t = std::clamp(int((mp.y - a.y) / (b.y - a.y) * p.max_position), 0, p.max_position - 1);
    const int j = std::clamp(int((mp.x - a.x) / (b.x - a.x) * p.d_model()), 0, p.d_model() - 1);
    tooltip("P[%d, %d] = %.8g\nrow t = position, column j = feature (d = h × d_head = %d)", t, j,
            table_value(p, model, t, j), p.d_model());
  }
}

// With a real model: its own table (GPT-2, BERT), or the one its context would need (a RoPE model has none).
void model_table_line(const App& app) {
  const Model& model = app.model;
  if (const WeightsTable* t = loaded_table(app.params)) {  // the checkpoint's own rows are drawn
    ImGui::TextColored(theme::vec(theme::kLearned), "%s's %s: its trained values (%s)",
                       app.params.weights->label.c_str(), t->tensor.c_str(), t->dtype.c_str());
    return;
  }
  if (!model.real) return;
  const RealModel& r = *model.real;
  std::string first, second;  // two clauses, each kept whole (a wrap inside "536,870,912" would split the number)
  if (const auto& table = r.info.absolute) {
    first = r.name + "'s own table: [" + format_count(table->max_position) + ", " + format_count(table->d) + "], " +
            format_count(table->parameters) + " parameters";
    second = "(values here are seeded, not its trained weights)";
  } else {
    const long long context = app.params.max_position;
    first = r.name + " has no such table: RoPE adds 0 parameters.";
    second = "A learned table for its " + format_count(context) + " positions × hidden size " + format_count(r.hidden) +
             " would hold " + format_count(context * r.hidden) + ".";
  }
  ImGui::TextColored(theme::vec(theme::kRope), "%s", first.c_str());
  same_line_if_fits(ImGui::CalcTextSize(second.c_str()).x);
  ImGui::TextUnformatted(second.c_str());
}

// The table's shape and parameter count, the formula, and the IndexError when m is past it.
void table_header(App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  char rows[28], width[28], count[28], params[96];
  ImGui::TextColored(theme::vec(theme::kLearned), "P [max_position, d] = [%s, %s]",
                     format_count(p.max_position, rows, sizeof rows), format_count(p.d_model(), width, sizeof width));
  std::snprintf(params, sizeof params, "d = h × d_head, %s learned parameters",
                format_count(learned_param_count(p.max_position, p.d_model()), count, sizeof count));
  same_line_if_fits(ImGui::CalcTextSize(params).x + ImGui::GetFrameHeight() * 2.0f);
  ImGui::TextDisabled("%s", params);
  formula_tip(
      "GPT-2's wpe: a learned table, one row per position (here seeded N(0, 0.02²), unless a checkpoint's table is "
      "loaded: then its trained rows). embedding[t] = "
      "E[token_id[t]] + P[t]: [B, T, d] + [T, d] -> [B, T, d], broadcast over B. Row t exists only for "
      "0 ≤ t < max_position; P[t] for t ≥ max_position raises IndexError. The app's table has width d = h × d_head; "
      "the lesson's section 3 uses a [10, d_head] table.");
  model_table_line(app);
  if (!model.lookup_error) return;
  // The IndexError, and beside it what the same lookup does in other frameworks (not all raise).
  error_box("Learned table: position not in the table", model.lookup_message);
  frameworks_summary(app);
}

// The heatmap with its row labels and colour legend, leaving `below` pixels for what follows.
void table_area(App& app, float below) {
  const Params& p = app.params;
  const Model& model = app.model;
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  char last[32] = "t=";  // the last row's label sets the margin (t=131,071 for a long context)
  format_count(p.max_position - 1, last + 2, sizeof last - 2);
  const float margin = std::max(ImGui::CalcTextSize("t=00000").x, ImGui::CalcTextSize(last).x);
  // At least 40 px of table above the missing row's ghost (the panel scrolls rather than overlap).
  const float min_h = model.lookup_error ? std::max(40.0f + 3.4f * ImGui::GetTextLineHeight(), 40.0f / 0.72f) : 40.0f;
  const ImVec2 size(std::max(40.0f, avail.x - margin - 8.0f), std::max(min_h, avail.y - below));
  ImGui::Dummy(ImVec2(avail.x, size.y));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddText(ImVec2(p0.x, p0.y), theme::kMuted, "t=0");
  dl->AddText(ImVec2(p0.x, p0.y + size.y - (model.lookup_error ? ghost_height(size.y) : 0.0f) - lh), theme::kMuted,
              last);
  draw_table(app, ImVec2(p0.x + margin + 4.0f, p0.y), size);
  char label[128];
  if (model.table_sampled_rows > 0) {
    char one_in[28];
    std::snprintf(label, sizeof label, "P[t, j]; %d rows drawn (1 in %s); texel = largest |value| of 1×%d",
                  model.table_sampled_rows,
                  format_count(p.max_position / model.table_sampled_rows, one_in, sizeof one_in),
                  model.table_img.col_step);
  } else if (model.table_img.row_step > 1 || model.table_img.col_step > 1)
    std::snprintf(label, sizeof label, "P[t, j]; texel = largest |value| of %d×%d", model.table_img.row_step,
                  model.table_img.col_step);
  else
    std::snprintf(label, sizeof label, "P[t, j]");
  colour_legend(label, -float(model.table_absmax), float(model.table_absmax), avail.x);
}

// embedding[m] = E[token] + P[m] as value strips, or why it cannot be formed (and what other
// frameworks do with the same lookup).
void embedding_sum(const App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  const float width = ImGui::GetContentRegionAvail().x;
  // The row for the token at position m, and the embedding it is a row of: a batch of T = seq_len tokens holds
  // positions 0 to T - 1, so past them the shape is that of a batch whose last position is m (T = m + 1).
  const bool hypothetical = model.real && !model.real->info.absolute;  // a RoPE model: the table its context would need
  ImGui::Text("token at position m = %lld: E[token %lld] + P[%lld]%s", p.position, model.token, p.position,
              hypothetical ? " (hypothetical table)" : "");
  char shape[160], count[28];
  if (p.position < p.seq_len)
    std::snprintf(shape, sizeof shape, "row t = %lld of embedding [B, T, d] = [%d, %d, %d]", p.position, p.batch,
                  p.seq_len, p.d_model());
  else
    std::snprintf(shape, sizeof shape, "one row of [B, T, d] = [%d, %s, %d]: a batch whose last position is m", p.batch,
                  format_count(p.position + 1, count, sizeof count), p.d_model());
  same_line_if_fits(ImGui::CalcTextSize(shape).x);
  ImGui::TextDisabled("%s", shape);
  const double absmax = std::max(1e-12, 2.0 * model.table_absmax);
  const int d = p.d_model();
  value_strip("E[token]", model.e_row.data(), d, absmax, width, theme::kMuted);
  value_strip("P[t]", model.row ? model.row->data() : nullptr, d, absmax, width, theme::kLearned);
  if (model.row) {
    // The sum, element by element: drawn from the two rows above without a per-frame allocation.
    const float h = ImGui::GetTextLineHeight();
    ImGui::TextColored(theme::vec(theme::kOk), "E + P");
    ImGui::SameLine(strip_x());
    const ImVec2 sp = ImGui::GetCursorScreenPos();
    const float w = std::max(20.0f, width - (sp.x - ImGui::GetWindowPos().x));
    ImGui::Dummy(ImVec2(w, h));
    draw_strip(ImGui::GetWindowDrawList(), sp, w, h, d, absmax,
               [&](int j) { return model.e_row[j] + (*model.row)[j]; });
    return;
  }
  ImGui::TextColored(theme::vec(theme::kError), "E + P: cannot be formed, P[%lld] does not exist", p.position);
}

}  // namespace

void show_learned_table(App& app) {
  table_header(app);
  table_area(app, 5.2f * ImGui::GetTextLineHeightWithSpacing());  // room for the legend and the sum
  embedding_sum(app);
}

std::string describe_learned_table(const App& app) {
  const Params& p = app.params;
  const std::string at = format_count(p.position);
  return "Learned table panel: a heatmap of P with " + plural(p.max_position, "row", "rows") + " and " +
         plural(p.d_model(), "column", "columns") + ", " +
         (app.model.lookup_error ? "with the missing row " + at + " marked below the table."
                                 : "with row " + at + " highlighted.");
}

}  // namespace rv
