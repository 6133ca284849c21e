// The weights and learned_table ops over core's checkpoint reader (cli/eval_weights.hpp).
#include "cli/eval_weights.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/models/json_config.hpp"
#include "core/models/presets.hpp"
#include "core/weights/learned_table.hpp"
#include "core/weights/real_scores.hpp"
#include "core/weights/rope_usage.hpp"

namespace rv::cli {
namespace {

json vec(const Eigen::VectorXd& v) {
  return json(std::vector<double>(v.data(), v.data() + v.size()));
}

// "file" (a .safetensors file, or a checkpoint's folder: its model.safetensors, else its index) or "index": the
// checkpoint's path on disk, as Checkpoint::open_path takes it.
Expected<std::string> checkpoint_path(Request& r) {
  const bool file = r.has("file"), index = r.has("index");
  if (file && index) return bad_request("give either \"file\" or \"index\", not both");
  if (!file && !index)
    return bad_request(
        "missing required field \"file\" (a .safetensors path or a checkpoint's folder) or \"index\" "
        "(model.safetensors.index.json)");
  std::string path = r.string(file ? "file" : "index");
  if (r.error) return *r.error;
  std::error_code ec;
  if (file && std::filesystem::is_directory(path, ec)) {
    const std::string dir = path.back() == '/' ? path : path + "/";
    for (const char* name : {"model.safetensors", "model.safetensors.index.json"})
      if (std::filesystem::is_regular_file(dir + name, ec)) return dir + name;
    return bad_request("\"file\": the folder " + path +
                       " holds neither model.safetensors nor model.safetensors.index.json");
  }
  const bool json_name = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  if (index && !json_name)
    return bad_request("\"index\" must name a .json file (model.safetensors.index.json), got \"" + path + "\"");
  if (file && json_name) return bad_request("\"file\" names a .json file: give it as \"index\"");
  return path;
}

Expected<Checkpoint> open_checkpoint(Request& r) {
  Expected<std::string> path = checkpoint_path(r);
  if (!path) return path.error();
  return Checkpoint::open_path(*path);
}

// A config.json on disk, read and parsed (at most kMaxConfigFileBytes); `what` names it in messages.
Expected<HfConfig> config_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return bad_request(what + ": cannot read " + path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > kMaxConfigFileBytes) return bad_request(what + ": " + path + " is over 1 MiB");
  auto parsed = parse_hf_config(text);
  if (!parsed) return bad_request(what + ": " + parsed.error().message);
  return parsed;
}

// "config" (a config.json object, or its path) or "preset" as a config, nullopt with neither.
Expected<std::optional<HfConfig>> config_of(Request& r) {
  const json* raw = r.value("config");
  const bool has_preset = r.has("preset");
  if (raw && has_preset) return bad_request("give either \"config\" or \"preset\", not both");
  if (raw && raw->is_string()) {
    Expected<HfConfig> c = config_file(raw->get<std::string>(), "config");
    if (!c) return c.error();
    return std::optional<HfConfig>(*c);
  }
  const json* cfg = r.object("config");
  const std::string preset = has_preset ? r.string("preset") : std::string();
  if (r.error) return *r.error;
  if (cfg) {
    auto parsed = parse_hf_config(cfg->dump());
    if (!parsed) return bad_request("config: " + parsed.error().message);
    return std::optional<HfConfig>(*parsed);
  }
  if (has_preset) {
    const Preset* p = find_preset(preset);
    if (!p) return bad_request("unknown preset \"" + preset + "\"");
    auto parsed = preset_config(*p);
    if (!parsed) return parsed.error();
    return std::optional<HfConfig>(*parsed);
  }
  return std::optional<HfConfig>();
}

}  // namespace

Expected<ModelCheckpoint> model_checkpoint(Request& r) {
  Expected<std::optional<HfConfig>> config = config_of(r);
  if (!config) return config.error();
  Expected<std::string> path = checkpoint_path(r);
  if (!path) return path.error();
  if (!config->has_value()) {  // the config.json beside the checkpoint, as the page and the desktop read it
    const std::size_t slash = path->find_last_of('/');
    const std::string beside =
        (slash == std::string::npos ? std::string() : path->substr(0, slash + 1)) + "config.json";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(beside, ec))
      return bad_request(
          "missing required field \"config\" (the model's config.json, or its path) or \"preset\", "
          "and there is no " +
          beside + " beside the checkpoint");
    Expected<HfConfig> found = config_file(beside, "config.json beside the checkpoint");
    if (!found) return found.error();
    config.value() = *found;
  }
  Expected<Checkpoint> c = Checkpoint::open_path(*path);
  if (!c) return c.error();
  return ModelCheckpoint{**config, std::move(c.value()), nullptr};
}

namespace {

json nested(const std::vector<std::vector<Eigen::VectorXd>>& g) {
  json out = json::array();
  for (const auto& layer : g) {
    json heads = json::array();
    for (const Eigen::VectorXd& h : layer) heads.push_back(vec(h));
    out.push_back(heads);
  }
  return out;
}

}  // namespace

Expected<json> op_weights(Request& r) {
  Expected<Checkpoint> c = open_checkpoint(r);
  if (!c) return c.error();
  json metadata = json::object();
  for (const auto& [k, v] : c->metadata()) metadata[k] = v;
  json tensors = json::array();
  for (const TensorInfo& t : c->tensors())
    tensors.push_back({{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}, {"file", t.file}});
  return json{{"header_bytes", c->header_bytes()},
              {"file_bytes", c->file_bytes()},
              {"metadata", metadata},
              {"tensors", tensors}};
}

Expected<json> op_learned_table(Request& r) {
  const std::string tensor = r.has("tensor") ? r.string("tensor") : std::string();
  const bool has_offset = r.has("offset");
  const long long offset = has_offset ? r.integer("offset") : 0;
  if (r.error) return *r.error;
  Expected<std::optional<HfConfig>> config = config_of(r);
  if (!config) return config.error();
  const std::string type = config->has_value() && (*config)->model_type ? *(*config)->model_type : std::string();
  if (has_offset && (offset < 0 || offset > 1000000)) return bad_request("\"offset\" must be in [0, 1000000]");
  Expected<Checkpoint> c = open_checkpoint(r);
  if (!c) return c.error();
  Expected<FoundTable> found =
      find_learned_table(c.value(), tensor, has_offset ? int(offset) : learned_table_offset(type));
  if (!found) return found.error();
  const LearnedTableAnalysis a = analyze_learned_table(found->positions);
  json components = json::array();
  for (Eigen::Index j = 0; j < a.components.cols(); ++j) components.push_back(vec(a.components.col(j)));
  return json{{"tensor", found->tensor->name},
              {"dtype", found->tensor->dtype},
              {"rows", a.rows},
              {"dim", a.dim},
              {"offset", found->offset},
              {"row_norm", vec(a.row_norm)},
              {"neighbour_cos", vec(a.neighbour_cos)},
              {"cos_by_offset", vec(a.cos_by_offset)},
              {"singular_values", vec(a.singular_values)},
              {"energy", vec(a.energy)},
              {"rank90", a.rank90},
              {"rank99", a.rank99},
              {"components", components}};
}

Expected<json> op_rope_usage(Request& r) {
  std::vector<int> layers;
  if (r.has("layers")) {
    for (long long l : r.integers("layers", 100000)) {
      if (l < 0 || l > 100000)
        return bad_request("\"layers\" entries must be in [0, 100000], got " + std::to_string(l));
      if (std::find(layers.begin(), layers.end(), int(l)) != layers.end())
        return bad_request("\"layers\" names layer " + std::to_string(l) + " twice");
      layers.push_back(int(l));
    }
    if (!r.error && layers.empty()) return bad_request("\"layers\" is empty: leave it out for every layer");
  }
  if (r.error) return *r.error;
  Expected<ModelCheckpoint> mc = model_checkpoint(r);
  if (!mc) return mc.error();
  Checkpoint& c = mc.value().checkpoint;
  const HfConfig& config = mc.value().config;
  Expected<RopeUsage> u = rope_usage(c, config, layers);
  if (!u) return u.error();
  return json{{"model_type", u->model_type},
              {"layers", u->layers},
              {"heads", u->heads},
              {"kv_heads", u->kv_heads},
              {"head_dim", u->head_dim},
              {"rotary_dims", u->rotary_dims},
              {"pairing", pairing_name(u->pairing)},
              {"wavelength", vec(u->wavelength)},
              {"q", nested(u->q)},
              {"k", nested(u->k)},
              {"q_mean", vec(u->q_mean)},
              {"k_mean", vec(u->k_mean)}};
}

Expected<json> op_real_scores(Request& r) {
  const long long head = r.integer("head", 0), token = r.integer("token"), key_token = r.integer("key_token");
  const long long offsets = r.integer("offsets", 64);
  if (r.error) return *r.error;
  if (offsets < 0 || offsets > 1000000)
    return bad_request("\"offsets\" must be in [0, 1000000], got " + std::to_string(offsets));
  if (head < 0 || head > 65536) return bad_request("\"head\" must be in [0, 65536], got " + std::to_string(head));
  Expected<ModelCheckpoint> mc = model_checkpoint(r);
  if (!mc) return mc.error();
  Checkpoint& c = mc.value().checkpoint;
  const HfConfig& config = mc.value().config;
  Expected<RealScores> s = real_scores(c, config, int(head), token, key_token, int(offsets));
  if (!s) return s.error();
  std::vector<long long> offs;
  for (long long d = 0; d <= offsets; ++d) offs.push_back(d);
  return json{{"offsets", offs}, {"score", s->score}};
}

}  // namespace rv::cli
