// A small ImPlot-shaped plot kit on ImDrawList: begin_plot, series calls, end_plot draws axes, ticks, legend and hover.
#pragma once
#include "app/state/decimated.hpp"
#include "imgui.h"

namespace rv::plot {

enum class Scale { Linear, Log10 };

struct Axis {
  const char* label = nullptr;  // title, drawn outside the data area
  Scale scale = Scale::Linear;
  double lo = 0, hi = 0;  // fixed range (data units) when lo < hi, else fitted to the series
  bool integer = false;   // ticks and the hovered x at whole numbers
};

// A second, log10 y scale on the right for another quantity of the same data (both monotonic).
struct RightAxis {
  const char* label = nullptr;
  double (*to_right)(double) = nullptr;  // left data value -> right value; null: no right axis
  double (*to_left)(double) = nullptr;
  ImU32 colour = 0;
};

struct Spec {
  Axis x, y;
  RightAxis right;
};

struct Style {
  ImU32 colour = IM_COL32_WHITE;
  float thickness = 1.5f;
  float dots = 0.0f;    // radius of a dot at each point (lines from arrays)
  bool dashed = false;  // envelopes
  bool fit = true;      // false: the series does not widen the auto-fitted y range
};

// Starts a plot filling `size` (screen pixels). Labels passed to any call are copied.
bool begin_plot(const char* id, ImVec2 size, const Spec& spec);
// Columns to decimate() curves to for this plot (about one per pixel); valid after begin_plot.
int columns();

// y_at(i) at x = x0 + i * xscale, i < n.
template <class F>
void plot_line_g(const char* label, int n, F y_at, const Style& s, double xscale = 1.0, double x0 = 0.0);
void plot_line(const char* label, const double* ys, int n, const Style& s, double xscale = 1.0, double x0 = 0.0);
// A decimated curve whose first and last source points sit at x_first and x_last.
void plot_line(const char* label, const Decimated& d, double x_first, double x_last, const Style& s);
// ±(column max of d): a symmetric envelope (upper line at each column's max, lower at minus it).
void plot_envelope(const char* label, const Decimated& d, double x_first, double x_last, const Style& s);
// A filled band between lo_at(i) and hi_at(i) at x = x0 + i * xscale for the i < n where has(i) (a gap elsewhere); no
// legend entry (label the line drawn over it).
template <class Has, class Lo, class Hi>
void plot_band_g(int n, Has has, Lo lo_at, Hi hi_at, ImU32 colour, double xscale = 1.0, double x0 = 0.0);
// A filled disc with a ring; outside the x range, an arrow at that edge.
void plot_marker(const char* label, double x, double y, ImU32 colour);
// Dashed lines across the data area, with an optional label on a plate at the right (hline) or top (vline).
void plot_hline(double y, ImU32 colour, const char* label = nullptr, bool label_below = false);
void plot_vline(double x, ImU32 colour, const char* label = nullptr);
void plot_vspan(double x0, double x1, ImU32 colour);                 // a tinted column, full height
// Lays out, draws everything recorded since begin_plot, the legend under the axis, the hover cursor.
void end_plot();

// After end_plot: if the plot is hovered, opens a tooltip, sets *x to the data x under the cursor
// (snapped when the x axis is integer) and returns true; then call end_readout().
bool begin_readout(double* x);
void end_readout();
// end_plot(), then, if hovered, a read-out tooltip whose lines readout(x) writes for the data x.
template <class F>
void end_plot(F&& readout) {
  end_plot();
  double x = 0;
  if (!begin_readout(&x)) return;
  readout(x);
  end_readout();
}
// Dot radius for a series of n points: small when they crowd.
inline float dots_for(int n) {
  return n > 64 ? 1.5f : 3.0f;
}

// [SECTION] internals of plot_line_g
void series_begin(const char* label, const Style& s);
void series_point(double x, double y);
void band_begin(ImU32 colour);
void band_point(double x, double lo, double hi);  // lo > hi (NaN): a gap

template <class Has, class Lo, class Hi>
void plot_band_g(int n, Has has, Lo lo_at, Hi hi_at, ImU32 colour, double xscale, double x0) {
  band_begin(colour);
  for (int i = 0; i < n; ++i) {
    const bool h = has(i);
    band_point(x0 + i * xscale, h ? lo_at(i) : 1.0, h ? hi_at(i) : -1.0);
  }
}

template <class F>
void plot_line_g(const char* label, int n, F y_at, const Style& s, double xscale, double x0) {
  series_begin(label, s);
  for (int i = 0; i < n; ++i) series_point(x0 + i * xscale, y_at(i));
}

}  // namespace rv::plot
