// The Lab's "sequential vs random" view: per method, a run trained at 0..T-1 beside the same run trained at random
// positions (Ruoss et al. 2023), each mean with its seeds' band; the random run tested as trained and at 0..T-1.
#include <algorithm>
#include <cstdio>
#include <string>

#include "app/lab/lab_views.hpp"
#include "app/lab/lab_session.hpp"
#include "app/state/params.hpp"
#include "app/ui/plot_kit.hpp"
#include "app/ui/theme.hpp"
#include "app/ui/widgets.hpp"
#include "core/base/format.hpp"
#include "imgui.h"

namespace rv {
namespace {

using Curve = std::vector<std::optional<double>> LabSeedRun::*;

// One curve of a method: its mean (the lines stop at the first size without a number) over its band.
void curve(const LabMethodResult& m, const std::vector<std::optional<double>>& mean, Curve runs, ImU32 colour,
           bool dashed, const char* label) {
  int n = 0;
  while (n < int(mean.size()) && mean[std::size_t(n)]) ++n;
  if (m.runs.size() > 1)
    plot::plot_band_g(
        n,
        [&](int i) {
          double lo, hi;
          return lab_curve_band(m, runs, i + 1, lo, hi);
        },
        [&](int i) {
          double lo = 0, hi = 0;
          lab_curve_band(m, runs, i + 1, lo, hi);
          return lo;
        },
        [&](int i) {
          double lo = 0, hi = 0;
          lab_curve_band(m, runs, i + 1, lo, hi);
          return hi;
        },
        (colour & 0x00FFFFFF) | 0x30000000, 1.0, 1.0);
  plot::Style s{colour, 2.0f, plot::dots_for(n)};
  s.dashed = dashed;
  plot::plot_line_g(
      label, n, [&mean](int i) { return *mean[std::size_t(i)]; }, s, 1.0, 1.0);
}

const LabMethodResult* method_in(const LabResult& r, PositionMethod m) {
  for (const LabMethodResult& x : r.methods)
    if (x.method == m) return &x;
  return nullptr;
}

// Exact match just past training (sizes L+1..2L) of one curve: "38% (34–42)" or "—".
std::string near(const LabMethodResult& m, bool sequential_test, int L) {
  LabMethodResult copy = m;  // lab_summary_bands reads accuracy: the random run's 0..T-1 test in its place
  if (sequential_test)
    for (LabSeedRun& run : copy.runs) run.accuracy = run.accuracy_sequential;
  const LabBand b = lab_summary_bands(copy, L).near;
  char mean[24], lo[24], hi[24];
  if (!b.mean) return "—";
  std::string out = format_percent(*b.mean, mean, sizeof mean);
  if (b.runs > 1)
    out +=
        std::string(" (") + format_percent(*b.lo, lo, sizeof lo) + " to " + format_percent(*b.hi, hi, sizeof hi) + ")";
  return out;
}

}  // namespace

bool lab_remedy_ready(const App& app) {
  return app.lab.run && app.lab.run->done() && app.lab.previous &&
         lab_comparable(app.lab.previous->options, app.lab.run->result().options);
}

void lab_remedy_view(App& app) {
  const LabResult& now = app.lab.run->result();
  if (app.lab.running) {  // the other placement training: this view fills in when it finishes
    ImGui::TextDisabled("Training at %s positions: the comparison shows when the run finishes.",
                        lab_positions_name(now.options.positions));
    return;
  }
  if (!lab_remedy_ready(app)) {
    const bool random = now.options.positions == LabPositions::Random;
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(random ? "This run trained at random positions. Train the same experiment at sequential "
                                    "positions (0 to T-1) to set the two side by side."
                                  : "This run trained at positions 0 to T-1. Train the same experiment at random "
                                    "positions (Ruoss et al. 2023: each sequence at a sorted sample of a larger "
                                    "range) to set the two side by side.");
    ImGui::PopTextWrapPos();
    if (!app.lab.running && ImGui::Button(random ? "Run it sequential" : "Run it at random positions")) {
      LabOptions o = now.options;
      o.positions = random ? LabPositions::Sequential : LabPositions::Random;
      o.position_range = 0;
      o.table_len = 0;
      lab_start(app, lab_option_flags(o));
    }
    record_rect(app.ui, "lab_remedy_run");
    return;
  }
  const bool now_random = now.options.positions == LabPositions::Random;
  const LabResult& seq = now_random ? *app.lab.previous : now;
  const LabResult& rnd = now_random ? now : *app.lab.previous;
  const int L = now.options.train_len;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled(
      "Solid: trained at 0 to T-1. Dashed: trained at random positions in [0, %d), tested the same way. "
      "Light: that model tested at 0 to T-1. Shaded: the seeds' lowest to highest; the trained sizes "
      "are lighter.",
      lab_position_range(rnd.options));
  ImGui::PopTextWrapPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const int count = int(now.methods.size());
  const int cols = app.ui.narrow ? 1 : count <= 4 ? std::min(2, count) : 3, rows = (count + cols - 1) / cols;
  const ImVec2 size((avail.x - (cols - 1) * ImGui::GetStyle().ItemSpacing.x) / cols,
                    std::max(140.0f * app.ui.scale, avail.y / rows - ImGui::GetStyle().ItemSpacing.y));
  for (int k = 0; k < count; ++k) {
    const PositionMethod method = now.methods[std::size_t(k)].method;
    const LabMethodResult* a = method_in(seq, method);
    const LabMethodResult* b = method_in(rnd, method);
    if (k % cols) ImGui::SameLine();
    ImGui::BeginGroup();
    char id[48];
    std::snprintf(id, sizeof id, "lab_remedy_%s", position_method_name(method));
    plot::Spec spec;
    char title[64];
    std::snprintf(title, sizeof title, "%s: exact match by size n", position_method_name(method));
    spec.x = {nullptr, plot::Scale::Linear, 0.5, 4.0 * L + 0.5, true};
    spec.y = {title, plot::Scale::Linear, 0.0, 1.0};
    if (a && b && plot::begin_plot(id, size, spec)) {
      plot::plot_vspan(0.5, L + 0.5, IM_COL32(255, 255, 255, 14));
      const ImU32 c = colour_of(method);
      curve(*a, a->accuracy, &LabSeedRun::accuracy, c, false, nullptr);  // the sentence above says which is which
      curve(*b, b->accuracy, &LabSeedRun::accuracy, c, true, nullptr);
      const ImVec4 v = theme::vec(c);
      curve(*b, b->accuracy_sequential, &LabSeedRun::accuracy_sequential,
            ImGui::ColorConvertFloat4ToU32(ImVec4(0.5f * (v.x + 1), 0.5f * (v.y + 1), 0.5f * (v.z + 1), v.w)), false,
            nullptr);
      plot::end_plot([&](double x) {
        const int n = int(std::lround(x));
        char p1[24], p2[24], p3[24];
        const auto at = [n](const std::vector<std::optional<double>>& v, char* buf) {
          return n >= 1 && n <= int(v.size()) && v[std::size_t(n - 1)] ? format_percent(*v[std::size_t(n - 1)], buf, 24)
                                                                       : "—";
        };
        ImGui::Text("%s, size n = %d: trained at 0 to T-1 %s; at random positions %s (tested at 0 to T-1: %s)",
                    position_method_name(method), n, at(a->accuracy, p1), at(b->accuracy, p2),
                    at(b->accuracy_sequential, p3));
      });
    }
    ImGui::EndGroup();
  }
}

std::string describe_lab_remedy(const App& app) {
  if (!lab_remedy_ready(app)) return "";
  const LabResult& now = app.lab.run->result();
  const bool now_random = now.options.positions == LabPositions::Random;
  const LabResult& seq = now_random ? *app.lab.previous : now;
  const LabResult& rnd = now_random ? now : *app.lab.previous;
  const int L = now.options.train_len;
  std::string out = "Sequential against random positions, exact match just past training (sizes " +
                    std::to_string(L + 1) + " to " + std::to_string(2 * L) + "):";
  for (const LabMethodResult& m : now.methods) {
    const LabMethodResult* a = method_in(seq, m.method);
    const LabMethodResult* b = method_in(rnd, m.method);
    if (!a || !b) continue;
    out += std::string(" ") + position_method_name(m.method) + ": trained at 0 to T-1 " + near(*a, false, L) +
           ", at random positions " + near(*b, false, L) + " (tested at 0 to T-1: " + near(*b, true, L) + ").";
  }
  return out;
}

}  // namespace rv
