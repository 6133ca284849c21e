// CSV and JSON exports built from the Model: every number round-trips (shortest exact decimal).
#include "app/state/export.hpp"

#include <cmath>
#include <optional>

#include "app/state/params.hpp"
#include "app/state/registry.hpp"
#include "core/base/format.hpp"
#include "core/rope/rope.hpp"

namespace rv {

std::string export_tag(const Params& p) {
  return "m" + std::to_string(p.position) + "-d" + std::to_string(p.d_head);
}

namespace {

// First lines of every CSV: what produced it, as a comment a spreadsheet skips or shows.
std::string preamble(const App& app, const char* what) {
  return std::string("# ropeviz ") + what + "; state: " + encode_query(app.params) + "\n";
}

void append_row(std::string& out, std::initializer_list<double> values) {
  bool first = true;
  for (double v : values) {
    if (!first) out += ',';
    out += format_number(v);
    first = false;
  }
  out += '\n';
}

}  // namespace

std::string csv_quoted(const std::string& text) {
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

ExportFile export_angles_csv(const App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  std::string out = preamble(app, "RoPE angles per pair at position m");
  out += "i,theta_i,angle_m_theta_i,angle_mod_2pi,wavelength,q_a,q_b,q_rot_a,q_rot_b,k_rot_a,k_rot_b\n";
  for (int i = 0; i < int(model.inv_freq.size()); ++i) {
    const Eigen::Vector2d q = rope_pair(model.q, i, p.pairing), qr = rope_pair(model.q_rot, i, p.pairing);
    const Eigen::Vector2d kr = rope_pair(model.k_rot, i, p.pairing);
    append_row(out, {double(i), model.inv_freq[i], model.angles[i], std::fmod(model.angles[i], kTwoPi),
                     rope_wavelength(model.inv_freq[i]), q[0], q[1], qr[0], qr[1], kr[0], kr[1]});
  }
  return {"ropeviz-angles-" + export_tag(p) + ".csv", "text/csv", out};
}

ExportFile export_score_csv(const App& app) {
  const Params& p = app.params;
  const Model& model = app.model;
  std::string out = preamble(app, "score <RoPE(q, n + r), RoPE(k, n)> against the offset r");
  out += "offset_r,score_anchor_" + format_number(model.anchor_a) + ",score_anchor_" + format_number(model.anchor_b) +
         "\n";
  const long long lo = -(long long)p.offsets;
  for (size_t j = 0; j < model.curve_a.size() && j < model.curve_b.size(); ++j)
    append_row(out, {double(lo + (long long)j), model.curve_a[j], model.curve_b[j]});
  return {"ropeviz-score-" + export_tag(p) + ".csv", "text/csv", out};
}

ExportFile export_models_csv(const App& app, const std::vector<CatalogRow>& rows) {
  std::string out = preamble(app, "real models' positional encodings (presets from published config.json)");
  out +=
      "model,source,positions,base,head_dim,rotary_dims,pairing,rope_type,attention_factor,context,original_max_"
      "position,"
      "critical_dim,first_negative_m,learned_table_parameters\n";
  for (const CatalogRow& r : rows) {
    out += r.name + "," + csv_quoted(r.source) + ",";
    if (!r.info) {
      out += "error,,,,,,,,,,,\n";
      continue;
    }
    if (const auto& table = r.info->absolute) {
      out += "learned,,,,,,," + std::to_string(table->max_position) + ",,,," + std::to_string(table->parameters) + "\n";
      continue;
    }
    const RopeModel& rope = *r.info->rope;
    const ContextBudget& b = r.budget;
    out += "rope," + format_number(rope.base) + "," + std::to_string(rope.head_dim) + "," +
           std::to_string(rope.rotary_dims) + "," + pairing_name(rope.pairing) + "," + rope.rope_type + "," +
           format_number(rope.attention_factor) + "," + std::to_string(b.context) + "," +
           (b.original ? std::to_string(b.original) : std::string()) + "," + std::to_string(b.critical_dim) + "," +
           (b.first_negative_m ? std::to_string(*b.first_negative_m) : std::string()) + "," +
           std::to_string(b.learned_parameters) + "\n";
  }
  return {"ropeviz-models.csv", "text/csv", out};
}

std::string picture_name(const App& app, const std::string& panel) {
  return "ropeviz-" + (panel.empty() ? "" : panel + "-") + export_tag(app.params) + ".png";
}

std::optional<Rect> picture_region(const App& app) {
  if (app.ui.picture_panel.empty()) return std::nullopt;
  for (Bar bar : {Bar::Top, Bar::Bottom}) {
    const std::vector<const Panel*>& list = bar_panels(bar);
    const int shown = app.ui.shown_tab[int(bar)];
    if (shown < 0 || shown >= int(list.size()) || app.ui.picture_panel != list[size_t(shown)]->key) continue;
    const auto it = app.ui.rects.find(bar == Bar::Top ? "panel_top" : "panel_bottom");
    if (it != app.ui.rects.end()) return it->second;
  }
  return std::nullopt;
}

}  // namespace rv
