// The structured text view (app/text/text_view.hpp).
#include "app/text/text_view.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "app/panels/panel_calls.hpp"
#include "app/state/lesson.hpp"
#include "app/state/notes.hpp"
#include "app/state/registry.hpp"
#include "app/text/report.hpp"
#include "core/base/constants.hpp"
#include "core/base/format.hpp"
#include "core/rope/rope.hpp"

namespace rv {

namespace {
constexpr int kPairRowsMax = 64;  // rows of the RoPE table (d_head up to 128); more are summarised

std::string tag(const char* name, std::string_view text) {
  return std::string("<") + name + ">" + html_escape(text) + "</" + name + ">";
}

// A table with a caption, column headers and rows of cells (already text).
std::string table(std::string_view caption, std::initializer_list<const char*> columns,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table>" + tag("caption", caption) + "<thead><tr>";
  for (const char* c : columns) out += std::string("<th scope=\"col\">") + html_escape(c) + "</th>";
  out += "</tr></thead><tbody>";
  for (const std::vector<std::string>& row : rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i)
      out += i == 0 ? "<th scope=\"row\">" + html_escape(row[i]) + "</th>" : tag("td", row[i]);
    out += "</tr>";
  }
  return out + "</tbody></table>";
}

// A share of test sequences in whole percents, what 100 sequences per size support (core's format_percent).
std::string percent(const std::optional<double>& v) {
  char buf[16];
  return v ? std::string(format_percent(*v, buf, sizeof buf)) : std::string("no number");
}

std::string encodings(const App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  const std::string at = format_count(p.position);
  std::string out =
      "<h2>Position m = " + html_escape(at) + ", key n = " + html_escape(format_count(p.key_position)) + "</h2>";
  if (const std::string summary = describe_model(app); !summary.empty()) out += tag("p", summary);
  out += "<h3>Learned absolute table</h3>";
  out += tag("p", "P has " + plural(p.max_position, "row", "rows") + " of width d = " + format_count(p.d_model()) +
                      ". " + lookup_sentence(app));
  out += "<h3>RoPE</h3>";
  const int pairs = int(model.inv_freq.size()), shown = std::min(pairs, kPairRowsMax);
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i < shown; ++i)
    rows.push_back({std::to_string(i), format_sig(model.inv_freq[i]), format_sig(model.angles[i]),
                    format_sig(model.angles[i] / kTwoPi, 4), format_sig(rope_wavelength(model.inv_freq[i]), 4)});
  out += table("RoPE's " + plural(pairs, "pair", "pairs") + " at m = " + at +
                   (shown < pairs ? " (the first " + std::to_string(shown) + ")" : ""),
               {"pair i", "theta_i", "angle m * theta_i (rad)", "turns", "wavelength 2 pi / theta_i"}, rows);
  return out + tag("p", score_sentence(app));
}

// A summary figure's mean and, over two or more seeds, its band: "48% (44% to 52%)".
std::string band_percent(const LabBand& b) {
  if (b.runs < 2) return percent(b.mean);
  return percent(b.mean) + " (" + percent(b.lo) + " to " + percent(b.hi) + ")";
}

// The lab's summary per method, as its panel's table.
std::string lab_table(const App& app) {
  if (!app.lab.run) return "";
  const LabResult& r = app.lab.run->result();
  std::vector<std::vector<std::string>> rows;
  for (const LabMethodResult& m : r.methods) {
    const LabSummaryBands b = lab_summary_bands(m, r.options.train_len);
    const bool capped = !m.reached_bar && b.steps_hi >= r.options.steps;
    rows.push_back({position_method_name(m.method), band_percent(b.inside), band_percent(b.near), band_percent(b.far),
                    b.final_loss.mean ? format_sig(*b.final_loss.mean, 3) : std::string("none yet"),
                    format_count(b.steps_lo) +
                        (b.steps_hi != b.steps_lo ? " to " + format_count(b.steps_hi) : std::string()) +
                        (capped ? " (max)" : "")});
  }
  const std::string verdict = lab_past_verdict(r);
  return table("Exact match by sequence size, L = " + std::to_string(r.options.train_len) +
                   (r.options.seeds > 1 ? ", the mean over " + std::to_string(r.options.seeds) +
                                              " seeds (in brackets the lowest and highest seed's)"
                                        : std::string()) +
                   "; each method trains until every training size is at the bar, so the step counts differ",
               {"method", "sizes 1 to L", "L+1 to 2L", "2L+1 to 4L", "final loss", "steps trained"}, rows) +
         (verdict.empty() ? std::string() : tag("p", verdict));
}
}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string text_view_html(const App& app) {
  const Params& p = app.params;
  std::string out = encodings(app);
  if (p.lesson > 0)
    out += "<h2>Lesson step " + std::to_string(p.lesson) + " of " + std::to_string(kLessonSteps) + ": " +
           html_escape(lesson_step(p.lesson).title) + "</h2>" + tag("p", lesson_step_sentences(app));
  for (Bar bar : kBars) {
    const Panel& panel = selected_panel(p, bar);
    out += "<h2>" + html_escape(panel.title) + "</h2>" + tag("p", describe_panel(panel, app));
    if (std::string_view(panel.key) == "lab") out += lab_table(app);
  }
  if (!app.ui.notes.empty()) {
    out += "<h2>Notes</h2><ul>";
    for (const std::string& note : app.ui.notes) out += tag("li", note_in_full(app.ui, note));
    out += "</ul>";
  }
  return out;
}

}  // namespace rv
