// State as JSON (for scripts and tests) and as sentences (for screen readers), from one App.
#include "app/report.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "app/params.hpp"

namespace rv {
namespace {

constexpr int described_pairs_max = 8;

std::vector<double> to_vector(const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

}  // namespace

std::string format_number(double v, int significant) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  return buf;
}

std::string describe(const App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  std::string s = "Position m = " + std::to_string(p.position) + ". ";
  s += "Learned absolute: the table P has " + std::to_string(p.max_position) + " rows (positions 0 to " +
       std::to_string(p.max_position - 1) + ") of width d = " + std::to_string(p.d_model()) + ". ";
  if (m.lookup_error)
    s += "It cannot serve position " + std::to_string(p.position) + ": " + m.lookup_error->full() + ". ";
  else
    s += "It serves position " + std::to_string(p.position) + " by looking up row P[" + std::to_string(p.position) +
         "]. ";
  const int pairs = int(m.inv_freq.size());
  s += "RoPE works at any position: it rotates " + std::to_string(pairs) + " dimension pairs of Q and K by m times theta_i";
  const int shown = std::min(pairs, described_pairs_max);
  std::string thetas, angles;
  for (int i = 0; i < shown; ++i) {
    thetas += (i ? ", " : "") + format_number(m.inv_freq[i]);
    angles += (i ? ", " : "") + format_number(m.angles[i]);
  }
  s += "; theta = " + thetas + (shown < pairs ? ", ..." : "") + "; angles in radians = " + angles +
       (shown < pairs ? ", ..." : "") + ". ";
  s += "Score of query at m = " + std::to_string(p.position) + " with key at n = " + std::to_string(p.key_position) +
       " (offset " + std::to_string(p.position - p.key_position) + "): " + format_number(m.score) + ".";
  return s;
}

std::string state_json(const App& app) {
  const Params& p = app.params;
  const Model& m = app.model;
  nlohmann::json j;
  j["position"] = p.position;
  j["key_position"] = p.key_position;
  j["max_position"] = p.max_position;
  j["d_head"] = p.d_head;
  j["d_model"] = p.d_model();
  j["heads"] = p.heads;
  j["batch"] = p.batch;
  j["seq_len"] = p.seq_len;
  j["vocab"] = p.vocab;
  j["base"] = p.base;
  j["pairing"] = pairing_name(p.pairing);
  j["seed"] = p.seed;
  j["offsets"] = p.offsets;
  j["absolute"] = {{"ok", !m.lookup_error.has_value()},
                   {"error", m.lookup_error ? nlohmann::json(m.lookup_error->full()) : nlohmann::json(nullptr)},
                   {"params", learned_param_count(p.max_position, p.d_model())}};
  j["rope"] = {{"ok", true}, {"theta", to_vector(m.inv_freq)}, {"angle", to_vector(m.angles)}, {"params", 0}};
  j["score"] = m.score;
  j["norm_max_diff"] = m.norm_max_diff;
  j["frame_ms"] = app.ui.frame_ms;
  j["frames"] = app.ui.frames;
  j["notes"] = app.ui.notes;
  j["hash"] = encode_query(p);
  return j.dump();
}

std::string apply_json(App& app, std::string_view json_text) {
  nlohmann::json j = nlohmann::json::parse(json_text.begin(), json_text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "set() expects an object such as {position: 100}";
  for (auto& [key, value] : j.items()) {
    std::string text;
    if (value.is_string()) text = value.get<std::string>();
    else if (value.is_number() || value.is_boolean()) text = value.dump();
    else {
      app.ui.notes.push_back(key + " must be a number or a string");
      continue;
    }
    set_param(app.params, key, text, app.ui.notes);
  }
  enforce_limits(app.params, app.ui.notes);
  return "";
}

}  // namespace rv
