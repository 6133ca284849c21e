// CSV and JSON exports built from the Model: every number round-trips (shortest exact decimal).
#include "app/state/export.hpp"

#include <cmath>
#include <optional>

#include "app/state/lab_session.hpp"
#include "app/state/params.hpp"
#include "app/state/registry.hpp"
#include "core/base/format.hpp"
#include "core/lab/lab_checkpoint.hpp"
#include "core/lab/lab_torch.hpp"
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

// A text field in double quotes, inner quotes doubled (RFC 4180).
std::string csv_quoted(const std::string& text) {
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
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

ExportFile export_angles_csv(const App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  std::string out = preamble(app, "RoPE angles per pair at position m");
  out += "i,theta_i,angle_m_theta_i,angle_mod_2pi,wavelength,q_a,q_b,q_rot_a,q_rot_b,k_rot_a,k_rot_b\n";
  for (int i = 0; i < int(m.inv_freq.size()); ++i) {
    const Eigen::Vector2d q = rope_pair(m.q, i, p.pairing), qr = rope_pair(m.q_rot, i, p.pairing);
    const Eigen::Vector2d kr = rope_pair(m.k_rot, i, p.pairing);
    append_row(out, {double(i), m.inv_freq[i], m.angles[i], std::fmod(m.angles[i], kTwoPi),
                     rope_wavelength(m.inv_freq[i]), q[0], q[1], qr[0], qr[1], kr[0], kr[1]});
  }
  return {"ropeviz-angles-" + export_tag(p) + ".csv", "text/csv", out};
}

ExportFile export_score_csv(const App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  std::string out = preamble(app, "score <RoPE(q, n + r), RoPE(k, n)> against the offset r");
  out += "offset_r,score_anchor_" + format_number(m.anchor_a) + ",score_anchor_" + format_number(m.anchor_b) + "\n";
  const long long lo = -(long long)p.offsets;
  for (size_t j = 0; j < m.curve_a.size() && j < m.curve_b.size(); ++j)
    append_row(out, {double(lo + (long long)j), m.curve_a[j], m.curve_b[j]});
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

ExportFile export_lab_csv(const App& app) {
  std::string out = "# ropeviz lab";
  if (!app.lab.run) return {"ropeviz-lab.csv", "text/csv", out + ": not run\n"};
  const LabResult& r = app.lab.run->result();
  for (const std::string& flag : lab_option_flags(r.options)) out += " " + flag;
  out += std::string(app.lab.running ? " (running)" : app.lab.stopped ? " (stopped early)" : "") + "\n";
  out += "method,seed,series,x,value,error\n";
  const auto rows = [&out](const std::string& method, const std::string& seed, const char* series,
                           const auto& values, const std::string& error) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::optional<double> v = values[i];
      out += method + "," + seed + "," + series + "," + std::to_string(i + 1) + "," + (v ? format_number(*v) : "") +
             "," + (v ? "" : csv_quoted(error)) + "\n";
    }
  };
  for (const LabMethodResult& m : r.methods) {
    const std::string name = position_method_name(m.method), error = m.error.value_or("");
    rows(name, "mean", "exact_match", m.accuracy, error);
    rows(name, "mean", "token_accuracy", m.token_accuracy, error);
    rows(name, "mean", "accuracy_scaled", m.accuracy_scaled, error);  // rope with --rope-scaling only
    rows(name, "mean", "token_accuracy_scaled", m.token_accuracy_scaled, error);
    for (const LabSeedRun& run : m.runs) {
      const std::string seed = std::to_string(run.seed), run_error = run.error.value_or("");
      rows(name, seed, "exact_match", run.accuracy, run_error);
      rows(name, seed, "token_accuracy", run.token_accuracy, run_error);
      rows(name, seed, "train_loss", run.train_loss, run_error);
      rows(name, seed, "accuracy_scaled", run.accuracy_scaled, run_error);
      rows(name, seed, "token_accuracy_scaled", run.token_accuracy_scaled, run_error);
    }
  }
  return {"ropeviz-lab-" + std::string(lab_task_name(r.options.task)) + "-L" + std::to_string(r.options.train_len) +
              "-seed" + std::to_string(r.options.seed) + ".csv",
          "text/csv", out};
}

std::vector<ExportFile> lab_torch(const App& app) {
  const LabOptions o = app.lab.run ? app.lab.run->result().options : lab_options(app.params);
  return {{"ropeviz_lab.py", "text/x-python", lab_torch_script(o)},
          {"ropeviz_lab_data.json", "application/json", lab_torch_data(o, kLabTorchBatches)}};
}

std::vector<ExportFile> lab_weights(const App& app) {
  std::vector<ExportFile> out;
  if (!app.lab.run) return out;
  const LabResult& r = app.lab.run->result();
  for (const LabTrained& t : app.lab.run->trained()) {
    const Expected<std::vector<std::uint8_t>> bytes = lab_safetensors(t);
    if (!bytes) continue;
    const std::string stem = std::string("ropeviz-lab-") + position_method_name(t.method);
    out.push_back({stem + "-model.safetensors", "application/octet-stream", std::string(bytes->begin(), bytes->end())});
    out.push_back({stem + "-config.json", "application/json", lab_config_json(t, r.options, t.steps_run)});
  }
  return out;
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
