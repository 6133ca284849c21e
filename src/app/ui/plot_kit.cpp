// The plot kit (plot_kit.hpp): series are recorded between begin_plot and end_plot, then fitted, laid
// out (margins from the tick labels), clipped to the data area and drawn, with legend and hover cursor.
#include "app/ui/plot_kit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "app/ui/theme.hpp"
#include "app/ui/tooltip.hpp"
#include "core/base/format.hpp"

namespace rv::plot {
namespace {

// [SECTION] recorded state of the current plot (buffers keep their capacity: no allocation once warm)

enum class Kind { Line, Columns, Envelope, Band, Marker, HLine, VLine, VSpan };

struct Item {
  Kind kind;
  Style style;
  int label = -1;        // offset in State::text, or -1
  int from = 0, to = 0;  // range in pts (Line) or cols (Columns, Envelope)
  double x = 0, y = 0, x2 = 0;
  bool below = false;
};
struct Point {
  double x, y;  // axis space (log10 applied)
};
struct Column {
  double x, lo, hi;
};

struct Ticks {
  double v[32];
  int n = 0;
};

struct State {
  ImVec2 p0, size;
  Spec spec;
  bool hovered = false;
  std::vector<Item> items;
  std::vector<Point> pts;
  std::vector<Column> cols;
  std::vector<char> text;
  std::vector<ImVec2> screen;  // scratch for strokes
  // after layout, in axis space
  ImVec2 a, b;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  bool has_hover = false;
  double hover_x = 0;
  // vline label plates drawn so far (min, max), so the next one that would overlap moves down a line
  ImVec2 vplates[8][2];
  int vplate_count = 0;
};
State g;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

double to_axis(const Axis& ax, double v) {
  return ax.scale == Scale::Log10 ? (v > 0 ? std::log10(v) : kNan) : v;
}
double from_axis(const Axis& ax, double v) {
  return ax.scale == Scale::Log10 ? std::pow(10.0, v) : v;
}
float sx(double x) {
  return g.a.x + float((x - g.x0) / (g.x1 - g.x0)) * (g.b.x - g.a.x);
}
float sy(double y) {
  return g.b.y - float((y - g.y0) / (g.y1 - g.y0)) * (g.b.y - g.a.y);
}
const char* text_at(int offset) {
  return offset < 0 ? nullptr : g.text.data() + offset;
}
int keep_text(const char* s) {
  if (!s) return -1;
  const int at = int(g.text.size());
  g.text.insert(g.text.end(), s, s + std::strlen(s) + 1);
  return at;
}
Item& add(Kind kind, const char* label, const Style& s) {
  g.items.push_back(Item{kind, s});
  g.items.back().label = keep_text(label);
  return g.items.back();
}

// [SECTION] ticks

double nice_step(double range, int count) {
  const double raw = range / std::max(1, count);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double f : {1.0, 2.0, 5.0})
    if (f * p >= raw) return f * p;
  return 10.0 * p;
}

// Tick positions in axis space: 1-2-5 steps (linear) or whole decades, every k-th when crowded (log).
Ticks make_ticks(const Axis& ax, double lo, double hi, int count) {
  Ticks t;
  if (!(hi > lo)) return t;
  const bool log = ax.scale == Scale::Log10;
  double step = log ? std::ceil((hi - lo) / std::max(1, count)) : nice_step(hi - lo, count);
  if (ax.integer && !log) step = std::max(1.0, std::round(step));
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step && t.n < 32; v += step)
    t.v[t.n++] = std::abs(v) < 1e-9 * step ? 0.0 : v;
  return t;
}

void tick_label(char* buf, std::size_t n, const Axis& ax, double v) {
  std::snprintf(buf, n, "%s", format_sig(from_axis(ax, v), 4).c_str());
}

// [SECTION] fit and layout

void widen(double& lo, double& hi, double v) {
  if (!std::isfinite(v)) return;
  lo = std::min(lo, v);
  hi = std::max(hi, v);
}

// The range of one axis: fixed by the spec, else fitted to the recorded series and padded.
void fit_axis(const Axis& ax, bool is_x, double& lo, double& hi) {
  if (ax.lo < ax.hi) {
    lo = to_axis(ax, ax.lo);
    hi = to_axis(ax, ax.hi);
    return;
  }
  lo = std::numeric_limits<double>::infinity();
  hi = -lo;
  for (const Item& it : g.items) {
    if (!is_x && !it.style.fit) continue;
    const bool env = it.kind == Kind::Envelope;
    if (it.kind == Kind::Band)
      for (int i = it.from; i < it.to; ++i)
        if (g.cols[i].lo <= g.cols[i].hi) {
          widen(lo, hi, is_x ? g.cols[i].x : g.cols[i].lo);
          widen(lo, hi, is_x ? g.cols[i].x : g.cols[i].hi);
        }
    if (it.kind == Kind::Line)
      for (int i = it.from; i < it.to; ++i) widen(lo, hi, is_x ? g.pts[i].x : g.pts[i].y);
    if (it.kind == Kind::Columns || env)
      for (int i = it.from; i < it.to; ++i) {
        widen(lo, hi, is_x ? g.cols[i].x : env ? -g.cols[i].hi : g.cols[i].lo);
        widen(lo, hi, is_x ? g.cols[i].x : g.cols[i].hi);
      }
    if (!is_x && (it.kind == Kind::Marker || it.kind == Kind::HLine)) widen(lo, hi, it.y);
  }
  if (!(hi >= lo)) lo = 0, hi = 1;
  const double pad = hi > lo ? 0.06 * (hi - lo) : std::max(1.0, std::abs(lo));
  lo -= is_x ? 0 : pad;
  hi += is_x ? 0 : pad;
  if (is_x && hi == lo) lo -= 0.5, hi += 0.5;
}

float widest_label(const Axis& ax, const Ticks& t) {
  char buf[48];
  float w = 0;
  for (int i = 0; i < t.n; ++i) {
    tick_label(buf, sizeof buf, ax, t.v[i]);
    w = std::max(w, ImGui::CalcTextSize(buf).x);
  }
  return w;
}

// Right-axis ticks: decades of the right quantity, returned as left-axis positions (log10 space).
Ticks right_ticks(int count, double* values) {
  const RightAxis& r = g.spec.right;
  const double e0 = std::log10(r.to_right(from_axis(g.spec.y, g.y0)));
  const double e1 = std::log10(r.to_right(from_axis(g.spec.y, g.y1)));
  Axis decades;
  decades.scale = Scale::Log10;
  Ticks t = make_ticks(decades, std::min(e0, e1), std::max(e0, e1), count);
  for (int i = 0; i < t.n; ++i) {
    values[i] = t.v[i];
    t.v[i] = to_axis(g.spec.y, r.to_left(std::pow(10.0, t.v[i])));
  }
  return t;
}

// The right axis' labels are of its own values, not of the left positions.
Ticks right_rvals_ticks(const Ticks& rt, const double* rvals) {
  Ticks t = rt;
  for (int i = 0; i < t.n; ++i) t.v[i] = rvals[i];
  return t;
}

// Legend rows when flowed across width w; draws them at `at` when draw is set.
int legend(float w, ImVec2 at, bool draw);

void layout(Ticks& xt, Ticks& yt, Ticks& rt, double* rvals) {
  const float lh = ImGui::GetTextLineHeight(), em = ImGui::GetFontSize();
  const float top = lh * 1.7f;
  const float bottom = lh * (1.2f + (g.spec.x.label ? 1.0f : 0.0f)) + lh * legend(g.size.x, ImVec2(), false);
  const float data_h = std::max(10.0f, g.size.y - top - bottom);
  const int y_count = std::max(2, int(data_h / (1.8f * lh)));
  yt = make_ticks(g.spec.y, g.y0, g.y1, y_count);
  const bool right = g.spec.right.to_right && g.spec.y.scale == Scale::Log10;
  rt = right ? right_ticks(y_count, rvals) : Ticks{};
  Axis decades;
  decades.scale = Scale::Log10;
  const float left = std::max(widest_label(g.spec.y, yt), em) + 8.0f;
  const float right_w = right ? widest_label(decades, right_rvals_ticks(rt, rvals)) + 8.0f : em * 0.8f;
  g.a = ImVec2(g.p0.x + left, g.p0.y + top);
  g.b = ImVec2(g.p0.x + g.size.x - right_w, g.p0.y + top + data_h);
  xt = make_ticks(g.spec.x, g.x0, g.x1, std::max(2, int((g.b.x - g.a.x) / (7.0f * em))));
}

// [SECTION] drawing

// A polyline, solid or dashed: dashes follow the length along the path (6 px on, 4 off), so a
// vertical line dashes as a horizontal one does.
void stroke(ImDrawList* dl, const ImVec2* p, int n, ImU32 colour, float thickness, bool dashed) {
  if (!dashed) {
    for (int i = 0; i < n; ++i) dl->PathLineTo(p[i]);
    return dl->PathStroke(colour, 0, thickness);
  }
  constexpr float kDashOn = 6.0f, kDashPeriod = 10.0f;
  bool open = false;
  float walked = 0;
  for (int i = 0; i + 1 < n; ++i) {
    const ImVec2 u = p[i], d(p[i + 1].x - u.x, p[i + 1].y - u.y);
    const float len = std::sqrt(d.x * d.x + d.y * d.y);
    for (float s = 0; s < len;) {
      const float phase = std::fmod(walked + s, kDashPeriod);
      const bool drawn = phase < kDashOn;
      const float next = std::min(len, s + (drawn ? kDashOn : kDashPeriod) - phase);
      if (drawn) {
        if (!open) dl->PathLineTo(ImVec2(u.x + d.x * s / len, u.y + d.y * s / len));
        dl->PathLineTo(ImVec2(u.x + d.x * next / len, u.y + d.y * next / len));
        open = true;
      } else if (open) {
        dl->PathStroke(colour, 0, thickness);
        open = false;
      }
      s = next;
    }
    walked += len;
  }
  if (open) dl->PathStroke(colour, 0, thickness);
}

void draw_line(ImDrawList* dl, const Item& it) {
  g.screen.clear();
  for (int i = it.from; i < it.to; ++i)
    if (std::isfinite(g.pts[i].y)) g.screen.push_back(ImVec2(sx(g.pts[i].x), sy(g.pts[i].y)));
  stroke(dl, g.screen.data(), int(g.screen.size()), it.style.colour, it.style.thickness, it.style.dashed);
  if (it.style.dots > 0)
    for (const ImVec2& p : g.screen) dl->AddCircleFilled(p, it.style.dots, it.style.colour);
}

// Decimated columns: one vertical run per column, joined, visiting the end nearer the last point first.
void draw_columns(ImDrawList* dl, const Item& it) {
  g.screen.clear();
  float last = it.to > it.from ? sy(g.cols[it.from].lo) : 0;
  for (int i = it.from; i < it.to; ++i) {
    const float x = sx(g.cols[i].x), lo = sy(g.cols[i].lo), hi = sy(g.cols[i].hi);
    const bool lo_first = std::fabs(lo - last) <= std::fabs(hi - last);
    g.screen.push_back(ImVec2(x, lo_first ? lo : hi));
    if (lo != hi) g.screen.push_back(ImVec2(x, lo_first ? hi : lo));
    last = lo_first ? hi : lo;
  }
  stroke(dl, g.screen.data(), int(g.screen.size()), it.style.colour, it.style.thickness, it.style.dashed);
}

void draw_envelope(ImDrawList* dl, const Item& it) {
  for (double sign : {1.0, -1.0}) {
    g.screen.clear();
    for (int i = it.from; i < it.to; ++i) g.screen.push_back(ImVec2(sx(g.cols[i].x), sy(sign * g.cols[i].hi)));
    stroke(dl, g.screen.data(), int(g.screen.size()), it.style.colour, it.style.thickness, it.style.dashed);
  }
}

// Quads between neighbouring columns that both have a band (lo <= hi), translucent.
void draw_band(ImDrawList* dl, const Item& it) {
  for (int i = it.from; i + 1 < it.to; ++i) {
    const Column &a = g.cols[i], &b = g.cols[i + 1];
    if (!(a.lo <= a.hi && b.lo <= b.hi)) continue;
    dl->AddQuadFilled(ImVec2(sx(a.x), sy(a.lo)), ImVec2(sx(b.x), sy(b.lo)), ImVec2(sx(b.x), sy(b.hi)),
                      ImVec2(sx(a.x), sy(a.hi)), it.style.colour);
  }
  for (int i = it.from; i < it.to; ++i) {  // a lone column (neighbours without a band): a bar the width of a dot
    const Column& c = g.cols[i];
    const bool left = i > it.from && g.cols[i - 1].lo <= g.cols[i - 1].hi;
    const bool right = i + 1 < it.to && g.cols[i + 1].lo <= g.cols[i + 1].hi;
    if (c.lo <= c.hi && !left && !right)
      dl->AddRectFilled(ImVec2(sx(c.x) - 3, sy(c.hi)), ImVec2(sx(c.x) + 3, sy(c.lo)), it.style.colour);
  }
}

// Moves a vline's label plate (top-left p, size ts) down past every earlier one it would overlap.
void stack_vplate(ImVec2& p, ImVec2 ts) {
  for (bool moved = true; moved;) {
    moved = false;
    for (int i = 0; i < g.vplate_count; ++i) {
      const ImVec2* r = g.vplates[i];
      if (p.x - 2 < r[1].x && p.x + ts.x + 2 > r[0].x && p.y < r[1].y && p.y + ts.y > r[0].y) {
        p.y = r[1].y + 1;
        moved = true;
      }
    }
  }
  if (g.vplate_count < int(std::size(g.vplates))) {
    g.vplates[g.vplate_count][0] = ImVec2(p.x - 2, p.y);
    g.vplates[g.vplate_count++][1] = ImVec2(p.x + ts.x + 2, p.y + ts.y);
  }
}

// A label on a dark plate, its top-left at p, kept inside the data area; vline labels stack instead of overlapping.
void plate(ImDrawList* dl, ImVec2 p, const char* s, ImU32 colour, bool stack = false) {
  const ImVec2 ts = ImGui::CalcTextSize(s);
  p.x = std::max(g.a.x + 2, std::min(p.x, g.b.x - ts.x - 2));
  if (stack) stack_vplate(p, ts);
  p.y = std::max(g.a.y + 1, std::min(p.y, g.b.y - ts.y - 1));
  dl->AddRectFilled(ImVec2(p.x - 2, p.y), ImVec2(p.x + ts.x + 2, p.y + ts.y), IM_COL32(20, 22, 26, 210), 2.0f);
  dl->AddText(p, colour, s);
}

void draw_marker(ImDrawList* dl, const Item& it) {
  const ImU32 c = it.style.colour;
  if (it.x >= g.x0 && it.x <= g.x1) {
    const ImVec2 p(sx(it.x), sy(it.y));
    dl->AddCircleFilled(p, 5.0f, c);
    dl->AddCircle(p, 7.0f, IM_COL32_WHITE);
    return;
  }
  const float dir = it.x < g.x0 ? 1.0f : -1.0f, x = dir > 0 ? g.a.x + 4 : g.b.x - 4;
  dl->AddTriangleFilled(ImVec2(x, g.a.y + 8), ImVec2(x + 10 * dir, g.a.y + 3), ImVec2(x + 10 * dir, g.a.y + 13), c);
}

void draw_item(ImDrawList* dl, const Item& it) {
  const ImVec2 ts = it.label >= 0 ? ImGui::CalcTextSize(text_at(it.label)) : ImVec2();
  switch (it.kind) {
    case Kind::Line:
      return draw_line(dl, it);
    case Kind::Columns:
      return draw_columns(dl, it);
    case Kind::Envelope:
      return draw_envelope(dl, it);
    case Kind::Band:
      return draw_band(dl, it);
    case Kind::Marker:
      return draw_marker(dl, it);
    case Kind::VSpan:
      return dl->AddRectFilled(ImVec2(sx(it.x), g.a.y), ImVec2(sx(it.x2), g.b.y), it.style.colour);
    case Kind::HLine:
    case Kind::VLine:
      break;
  }
  const bool h = it.kind == Kind::HLine;
  if (h ? (it.y < g.y0 || it.y > g.y1) : (it.x < g.x0 || it.x > g.x1)) return;
  const ImVec2 e[2] = {h ? ImVec2(g.a.x, sy(it.y)) : ImVec2(sx(it.x), g.a.y),
                       h ? ImVec2(g.b.x, sy(it.y)) : ImVec2(sx(it.x), g.b.y)};
  stroke(dl, e, 2, it.style.colour, 1.0f, true);
  if (it.label < 0) return;
  const ImVec2 at =
      h ? ImVec2(g.b.x - ts.x - 4, it.below ? e[0].y + 1 : e[0].y - ts.y - 1) : ImVec2(e[0].x + 4, g.a.y + 2);
  plate(dl, at, text_at(it.label), it.style.colour, !h);
}

void draw_axes(ImDrawList* dl, const Ticks& xt, const Ticks& yt, const Ticks& rt, const double* rvals) {
  const float lh = ImGui::GetTextLineHeight();
  char buf[48];
  for (int i = 0; i < yt.n; ++i) {
    const float y = sy(yt.v[i]);
    dl->AddLine(ImVec2(g.a.x, y), ImVec2(g.b.x, y),
                yt.v[i] == 0 && g.spec.y.scale == Scale::Linear ? theme::kGrid : theme::kGrid & 0x50FFFFFF);
    tick_label(buf, sizeof buf, g.spec.y, yt.v[i]);
    dl->AddText(ImVec2(g.a.x - ImGui::CalcTextSize(buf).x - 4, y - lh * 0.5f), theme::kMuted, buf);
  }
  Axis decades;
  decades.scale = Scale::Log10;
  for (int i = 0; i < rt.n; ++i) {
    tick_label(buf, sizeof buf, decades, rvals[i]);
    dl->AddText(ImVec2(g.b.x + 4, sy(rt.v[i]) - lh * 0.5f), g.spec.right.colour, buf);
  }
  for (int i = 0; i < xt.n; ++i) {
    const float x = sx(xt.v[i]);
    dl->AddLine(ImVec2(x, g.b.y), ImVec2(x, g.b.y + 3), theme::kGrid);
    tick_label(buf, sizeof buf, g.spec.x, xt.v[i]);
    const float w = ImGui::CalcTextSize(buf).x;
    dl->AddText(ImVec2(std::clamp(x - w * 0.5f, g.p0.x, g.p0.x + g.size.x - w), g.b.y + 3), theme::kMuted, buf);
  }
  dl->AddRect(g.a, g.b, theme::kGrid);
  if (const char* t = g.spec.y.label) dl->AddText(ImVec2(g.p0.x, g.p0.y), theme::kMuted, t);
  if (const char* t = g.spec.right.to_right ? g.spec.right.label : nullptr)
    dl->AddText(ImVec2(g.p0.x + g.size.x - ImGui::CalcTextSize(t).x, g.p0.y), g.spec.right.colour, t);
  if (const char* t = g.spec.x.label)
    dl->AddText(ImVec2(0.5f * (g.a.x + g.b.x - ImGui::CalcTextSize(t).x), g.b.y + 3 + lh), theme::kMuted, t);
}

void swatch(ImDrawList* dl, const Item& it, ImVec2 p, float w, float lh) {
  const ImU32 c = it.style.colour;
  const float y = p.y + lh * 0.5f;
  if (it.kind == Kind::Marker) return dl->AddCircleFilled(ImVec2(p.x + w * 0.5f, y), 4.0f, c);
  const ImVec2 e[2] = {ImVec2(p.x, y), ImVec2(p.x + w, y)};
  stroke(dl, e, 2, c, std::max(1.5f, it.style.thickness), it.style.dashed);
  if (it.style.dots > 0) dl->AddCircleFilled(ImVec2(p.x + w * 0.5f, y), it.style.dots, c);
}

int legend(float w, ImVec2 at, bool draw) {
  const float lh = ImGui::GetTextLineHeight(), em = ImGui::GetFontSize(), sw = 1.6f * em;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float x = 0;
  int rows = 0;
  for (const Item& it : g.items) {
    if (it.label < 0 || it.kind == Kind::HLine || it.kind == Kind::VLine) continue;
    const float iw = sw + 4 + ImGui::CalcTextSize(text_at(it.label)).x;
    if (rows == 0 || (x > 0 && x + iw > w)) x = 0, rows += 1;
    const ImVec2 p(at.x + x, at.y + (rows - 1) * lh);
    if (draw) swatch(dl, it, p, sw, lh);
    if (draw) dl->AddText(ImVec2(p.x + sw + 4, p.y), it.style.colour, text_at(it.label));
    x += iw + em;
  }
  return rows;
}

void hover_cursor(ImDrawList* dl) {
  const float mx = ImGui::GetIO().MousePos.x;
  g.has_hover = g.hovered && mx >= g.a.x && mx <= g.b.x;
  if (!g.has_hover) return;
  double x = g.x0 + double(mx - g.a.x) / double(g.b.x - g.a.x) * (g.x1 - g.x0);
  if (g.spec.x.integer) x = std::clamp(std::round(x), std::ceil(g.x0), std::floor(g.x1));
  g.hover_x = from_axis(g.spec.x, x);
  dl->AddLine(ImVec2(sx(x), g.a.y), ImVec2(sx(x), g.b.y), theme::kMuted & 0x90FFFFFF);
}

}  // namespace

// [SECTION] API

bool begin_plot(const char* id, ImVec2 size, const Spec& spec) {
  g.items.clear();
  g.pts.clear();
  g.cols.clear();
  g.text.clear();
  g.has_hover = false;
  g.vplate_count = 0;
  g.spec = spec;
  g.p0 = ImGui::GetCursorScreenPos();
  g.size = ImVec2(std::max(80.0f, size.x), std::max(60.0f, size.y));
  ImGui::InvisibleButton(id, g.size);
  g.hovered = ImGui::IsItemHovered();
  return true;
}

int columns() {
  return std::max(2, int(g.size.x));
}

void series_begin(const char* label, const Style& s) {
  Item& it = add(Kind::Line, label, s);
  it.from = it.to = int(g.pts.size());
}
void series_point(double x, double y) {
  g.pts.push_back(Point{to_axis(g.spec.x, x), to_axis(g.spec.y, y)});
  g.items.back().to = int(g.pts.size());
}

void band_begin(ImU32 colour) {
  Style s;
  s.colour = colour;
  Item& it = add(Kind::Band, nullptr, s);
  it.from = it.to = int(g.cols.size());
}
void band_point(double x, double lo, double hi) {
  g.cols.push_back(Column{to_axis(g.spec.x, x), to_axis(g.spec.y, lo), to_axis(g.spec.y, hi)});
  g.items.back().to = int(g.cols.size());
}

void plot_line(const char* label, const double* ys, int n, const Style& s, double xscale, double x0) {
  plot_line_g(
      label, n, [ys](int i) { return ys[i]; }, s, xscale, x0);
}

namespace {
void add_columns(Kind kind, const char* label, const Decimated& d, double x_first, double x_last, const Style& s) {
  Item& it = add(kind, label, s);
  it.from = int(g.cols.size());
  const double dx = d.n > 1 ? (x_last - x_first) / double(d.n - 1) : 0.0;
  for (int c = 0; c < d.columns; ++c) {
    const std::size_t i0 = std::size_t(c) * d.n / d.columns;
    const std::size_t i1 = std::max(i0 + 1, std::size_t(c + 1) * d.n / d.columns);
    g.cols.push_back(Column{to_axis(g.spec.x, x_first + 0.5 * double(i0 + i1 - 1) * dx), to_axis(g.spec.y, d.lo[c]),
                            to_axis(g.spec.y, d.hi[c])});
  }
  it.to = int(g.cols.size());
}
}  // namespace

void plot_line(const char* label, const Decimated& d, double x_first, double x_last, const Style& s) {
  add_columns(Kind::Columns, label, d, x_first, x_last, s);
}
void plot_envelope(const char* label, const Decimated& d, double x_first, double x_last, const Style& s) {
  add_columns(Kind::Envelope, label, d, x_first, x_last, s);
}

namespace {
// An item at (x, y) in data units (a line or span uses only one of them), in one colour.
Item& add_at(Kind kind, const char* label, ImU32 colour, double x, double y) {
  Style s;
  s.colour = colour;
  Item& it = add(kind, label, s);
  it.x = to_axis(g.spec.x, x);
  it.y = to_axis(g.spec.y, y);
  return it;
}
}  // namespace

void plot_marker(const char* label, double x, double y, ImU32 colour) {
  add_at(Kind::Marker, label, colour, x, y);
}
void plot_hline(double y, ImU32 colour, const char* label, bool label_below) {
  add_at(Kind::HLine, label, colour, 1.0, y).below = label_below;
}
void plot_vline(double x, ImU32 colour, const char* label) {
  add_at(Kind::VLine, label, colour, x, 1.0);
}
void plot_vspan(double x0, double x1, ImU32 colour) {
  add_at(Kind::VSpan, nullptr, colour, x0, 1.0).x2 = to_axis(g.spec.x, x1);
}

void end_plot() {
  fit_axis(g.spec.x, true, g.x0, g.x1);
  fit_axis(g.spec.y, false, g.y0, g.y1);
  Ticks xt, yt, rt;
  double rvals[32];
  layout(xt, yt, rt, rvals);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(g.p0, ImVec2(g.p0.x + g.size.x, g.p0.y + g.size.y), true);
  dl->PushClipRect(g.a, g.b, true);
  for (const Item& it : g.items) draw_item(dl, it);
  hover_cursor(dl);
  dl->PopClipRect();
  draw_axes(dl, xt, yt, rt, rvals);
  const float lh = ImGui::GetTextLineHeight();
  legend(g.size.x, ImVec2(g.p0.x, g.b.y + 3 + lh * (1.1f + (g.spec.x.label ? 1.0f : 0.0f))), true);
  dl->PopClipRect();
}

bool begin_readout(double* x) {
  if (!g.has_hover) return false;
  *x = g.hover_x;
  begin_tooltip();
  return true;
}
void end_readout() {
  end_tooltip();
}

}  // namespace rv::plot
