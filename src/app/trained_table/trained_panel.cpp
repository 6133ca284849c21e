// A trained learned table beside a random one of its shape: pairwise cosines, cosine by offset, row norms, the
// spectrum with rank90/99, the top three components and the table's path along them (GPT-2's helix), each from
// core's analysis (App::trained, app/trained_table/trained_view.hpp). Stacked when the window is narrow.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/trained_table/trained_view.hpp"
#include "app/ui/heatmap.hpp"
#include "app/ui/plot_kit.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

constexpr ImU32 kComponentColours[3] = {theme::kLearned, theme::kRope, theme::kKey};
constexpr int kPathSegmentsMax = 512;  // the 3-D path is drawn through at most this many rows
constexpr int kPlotPointsMax = 512;    // a curve over positions is drawn through every step-th row past this (16-bit
                                       // draw-list indices); its read-out stays exact

// Every how many rows a curve of n points is drawn.
int stride(int n) {
  return std::max(1, (n + kPlotPointsMax - 1) / kPlotPointsMax);
}

// A figure's title with its formula behind a (?).
void figure_title(const char* title, const char* formula) {
  ImGui::TextDisabled("%s", title);
  formula_tip(formula);
}

float plot_height(float width) {
  return std::clamp(width * 0.42f, 7.0f * ImGui::GetTextLineHeight(), 12.0f * ImGui::GetTextLineHeight());
}

void cosine_heatmap(const TrainedSide& s, float width) {
  const RowMatrixXd& C = s.cosines;
  const int n = int(C.rows());
  figure_title("cos(P[a], P[b]) between sampled positions",
               "cos(P[a], P[b]) = P[a]·P[b] / (|P[a]| |P[b]|) for the 48 evenly spaced rows a = round-down "
               "i (rows - 1) / 47 (first and last included); 0 with a zero row. Blue -1, dark 0, gold +1.");
  if (n == 0) return;
  const float side = std::min(width, 16.0f * ImGui::GetTextLineHeight());
  const ImVec2 a = ImGui::GetCursorScreenPos(), b(a.x + side, a.y + side);
  ImGui::Dummy(ImVec2(side, side));
  const auto cell = cell_heatmap(a, b, n, n, -1.0f, 1.0f, [&C](int r, int c) { return C(r, c); });
  if (cell.first >= 0) {
    const long long rows = s.analysis.rows;
    tooltip("cos(P[%lld], P[%lld]) = %.4f", (long long)sampled_row(rows, n, cell.first),
            (long long)sampled_row(rows, n, cell.second), C(cell.first, cell.second));
  }
}

void offset_plot(const TrainedSide& s, float width, int id) {
  const Eigen::VectorXd& v = s.analysis.cos_by_offset;
  figure_title("cosine by offset: how alike are positions k apart",
               "c(k) = mean over t < rows - k of cos(P[t], P[t + k]), k = 0 .. min(rows - 1, 256). c(0) = 1 for "
               "non-zero rows; a trained table stays high for small k, random rows drop to ~0 at k = 1.");
  if (v.size() == 0) return;
  char label[24];
  std::snprintf(label, sizeof label, "trained_offset_%d", id);
  plot::Spec spec;
  spec.x = {"offset k", plot::Scale::Linear, 0, std::max<double>(1, double(v.size() - 1)), true};
  spec.y = {"mean cos", plot::Scale::Linear, -1, 1};
  if (!plot::begin_plot(label, ImVec2(width, plot_height(width)), spec)) return;
  plot::plot_hline(0, theme::kGrid);
  plot::plot_line_g("c(k)", int(v.size()), [&v](int k) { return v[k]; }, {theme::kLearned, 1.5f});
  plot::end_plot([&v](double x) {
    const int k = std::clamp(int(std::lround(x)), 0, int(v.size() - 1));
    ImGui::Text("k = %d: mean cos %.4f", k, v[k]);
  });
}

void norm_plot(const TrainedSide& s, float width, int id) {
  const Eigen::VectorXd& v = s.analysis.row_norm;
  figure_title("row norm over position", "|P[t]| = sqrt(sum over j of P[t, j]²), t = 0 .. rows - 1.");
  if (v.size() == 0) return;
  char label[24];
  std::snprintf(label, sizeof label, "trained_norm_%d", id);
  plot::Spec spec;
  spec.x = {"position t", plot::Scale::Linear, 0, std::max<double>(1, double(v.size() - 1)), true};
  spec.y = {"|P[t]|"};
  if (!plot::begin_plot(label, ImVec2(width, plot_height(width)), spec)) return;
  const int n = int(v.size()), step = stride(n);
  plot::plot_line_g(
      "|P[t]|", (n + step - 1) / step, [&v, step](int i) { return v[i * step]; }, {theme::kMuted, 1.5f}, step);
  plot::end_plot([&v](double x) {
    const int t = std::clamp(int(std::lround(x)), 0, int(v.size() - 1));
    ImGui::Text("t = %d: |P[t]| = %.5g", t, v[t]);
  });
}

void spectrum_plot(const TrainedSide& s, float width, int id) {
  const LearnedTableAnalysis& a = s.analysis;
  figure_title("singular values of the centred table (log)",
               "C = P - mean row; C = U S V^T with s_1 >= s_2 >= ... (min(rows, dim) of them). energy(k) = "
               "(s_1² + ... + s_k²) / sum of all s_i²; rank90 and rank99 are the smallest k with energy(k) >= 0.90 "
               "and 0.99. Values below ~1e-8 s_1 are rounding (the spectrum comes from C's Gram matrix).");
  if (a.rank90 == 0) {
    ImGui::TextDisabled("no spectrum: the centred table is zero");
    return;
  }
  const Eigen::VectorXd& v = a.singular_values;
  const double floor = v[0] * 1e-8;  // below it the Gram route's rounding, not the table
  char label[24];
  std::snprintf(label, sizeof label, "trained_spectrum_%d", id);
  plot::Spec spec;
  spec.x = {"k", plot::Scale::Linear, 1, std::max<double>(2, double(v.size())), true};
  spec.y = {"s_k (log)", plot::Scale::Log10};
  if (!plot::begin_plot(label, ImVec2(width, plot_height(width)), spec)) return;
  plot::plot_vline(a.rank90, theme::kOk, "rank90");
  plot::plot_vline(a.rank99, theme::kMuted, "rank99");
  const int n = int(v.size()), step = stride(n);
  plot::plot_line_g(
      "s_k", (n + step - 1) / step, [&v, floor, step](int i) { return std::max(v[i * step], floor); },
      {theme::kLearned, 1.5f}, step, 1.0);
  plot::end_plot([&a, &v](double x) {
    const int k = std::clamp(int(std::lround(x)), 1, int(v.size()));
    ImGui::Text("k = %d: s_k = %.5g, energy %.4f", k, v[k - 1], a.energy[k - 1]);
  });
}

void components_plot(const TrainedSide& s, float width, int id) {
  const RowMatrixXd& c = s.analysis.components;
  figure_title("top three components against position",
               "c_j[t] = U[t, j] s_j = (C v_j)[t], j = 1, 2, 3: the table's coordinates along its three strongest "
               "directions, each signed so its largest-magnitude entry is positive.");
  if (c.cols() == 0 || s.component_absmax == 0) {
    ImGui::TextDisabled("no components: the centred table is zero");
    return;
  }
  char label[28];
  std::snprintf(label, sizeof label, "trained_components_%d", id);
  plot::Spec spec;
  spec.x = {"position t", plot::Scale::Linear, 0, std::max<double>(1, double(c.rows() - 1)), true};
  spec.y = {"c_j[t]"};
  if (!plot::begin_plot(label, ImVec2(width, plot_height(width)), spec)) return;
  static const char* const kNames[3] = {"c1", "c2", "c3"};
  const int n = int(c.rows()), step = stride(n);
  for (int j = 0; j < int(c.cols()); ++j)
    plot::plot_line_g(
        kNames[j], (n + step - 1) / step, [&c, j, step](int i) { return c(i * step, j); }, {kComponentColours[j], 1.5f},
        step);
  plot::end_plot([&c](double x) {
    const int t = std::clamp(int(std::lround(x)), 0, int(c.rows() - 1));
    for (int j = 0; j < int(c.cols()); ++j) ImGui::Text("t = %d: c%d = %.5g", t, j + 1, c(t, j));
  });
}

// (c1, c2, c3)[t] in an isometric view, coloured from dark (t = 0) to gold (the last row).
void path_3d(const TrainedSide& s, float width) {
  const RowMatrixXd& c = s.analysis.components;
  figure_title("the table's path along the three directions",
               "(c1[t], c2[t], c3[t]) for t = 0 .. rows - 1 in an isometric view: screen x = (c1 - c2) cos 30°, "
               "screen y = c3 - (c1 + c2) sin 30°; colour goes from blue (t = 0) to gold (the last row). A smooth "
               "trained table draws a curve (GPT-2's is a helix); random rows a tangle.");
  if (c.cols() < 3 || s.component_absmax == 0 || c.rows() < 2) {
    ImGui::TextDisabled("no path: fewer than three components or two rows");
    return;
  }
  const float side = std::min(width, 16.0f * ImGui::GetTextLineHeight());
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(side, side));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRect(p0, ImVec2(p0.x + side, p0.y + side), theme::kGrid);
  const float scale = side * 0.3f / float(s.component_absmax), cx = p0.x + side * 0.5f, cy = p0.y + side * 0.5f;
  const float cos30 = 0.8660254f;
  auto at = [&](Eigen::Index t) {
    const float a = float(c(t, 0)), b = float(c(t, 1)), z = float(c(t, 2));
    return ImVec2(cx + (a - b) * cos30 * scale, cy - (z - (a + b) * 0.5f) * scale);
  };
  const int axis = int(side * 0.12f);  // the three axes' directions, from the corner
  const ImVec2 o(p0.x + axis + 4.0f, p0.y + side - axis - 4.0f);
  dl->AddLine(o, ImVec2(o.x + axis * cos30, o.y + axis * 0.5f), kComponentColours[0]);
  dl->AddLine(o, ImVec2(o.x - axis * cos30 * 0.5f, o.y + axis * 0.25f), kComponentColours[1]);
  dl->AddLine(o, ImVec2(o.x, o.y - axis), kComponentColours[2]);
  const Eigen::Index rows = c.rows();
  const Eigen::Index step = std::max<Eigen::Index>(1, (rows + kPathSegmentsMax - 1) / kPathSegmentsMax);
  ImVec2 prev = at(0);
  for (Eigen::Index t = step; t < rows + step - 1; t += step) {
    const Eigen::Index u = std::min(t, rows - 1);
    const ImVec2 next = at(u);
    dl->AddLine(prev, next, diverging(2.0f * float(u) / float(rows - 1) - 1.0f), 1.5f);
    prev = next;
  }
}

void draw_side(const TrainedSide& s, float width, int id) {
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
  ImGui::TextColored(theme::vec(s.trained ? theme::kLearned : theme::kMuted), "%s",
                     s.trained ? "Trained table" : "Random table");
  ImGui::TextWrapped("%s", s.too_large.empty() ? s.sentence.c_str() : s.too_large.c_str());
  ImGui::PopTextWrapPos();
  if (!s.too_large.empty()) return;
  cosine_heatmap(s, width);
  offset_plot(s, width, id);
  norm_plot(s, width, id);
  spectrum_plot(s, width, id);
  components_plot(s, width, id);
  path_3d(s, width);
}

}  // namespace

void show_trained_table(App& app) {
  update_trained_view(app);
  const TrainedView& v = app.trained;
  if (!v.has_trained)
    ImGui::TextWrapped(
        "No trained table loaded: below is the app's own random table (%s × %s, seeded N(0, 0.02²), what a model "
        "starts from). Drop or pick a checkpoint's model.safetensors (GPT-2's wpe is the classic) or the Lab's saved "
        "weights to compare a trained table with a random one of its shape.",
        format_count(v.rows).c_str(), format_count(v.dim).c_str());
  const float avail = ImGui::GetContentRegionAvail().x;
  if (!v.has_trained || app.ui.narrow) {
    for (int i = v.has_trained ? 0 : 1; i < 2; ++i) {
      if (i == 1 && v.has_trained) ImGui::Separator();
      ImGui::BeginGroup();
      draw_side(v.sides[i], avail, i);
      ImGui::EndGroup();
    }
    return;
  }
  const float w = std::max(40.0f, (avail - ImGui::GetStyle().ItemSpacing.x * 2.0f) * 0.5f);
  for (int i = 0; i < 2; ++i) {
    if (i) ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 2.0f);
    ImGui::BeginGroup();
    draw_side(v.sides[i], w, i);
    ImGui::EndGroup();
  }
}

std::string describe_trained_table(const App& app) {
  const TrainedView& v = app.trained;
  std::string out = "Trained table panel: ";
  if (!trained_view_current(app))
    return out + "a checkpoint's learned table beside a random one of its shape, analysed when the panel is shown.";
  if (!v.has_trained)
    out += "no checkpoint loaded, so only the app's random table is analysed (load a model.safetensors to compare). ";
  for (int i = v.has_trained ? 0 : 1; i < 2; ++i) {
    const TrainedSide& s = v.sides[i];
    out += (s.too_large.empty() ? s.sentence : s.too_large) + " ";
  }
  out +=
      "Figures for each: cosines between sampled positions, cosine by offset, row norms, the singular-value "
      "spectrum with rank90 and rank99, the top three components and the path along them.";
  return out;
}

}  // namespace rv
