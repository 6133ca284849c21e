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

void vec(JsonWriter& w, const Eigen::VectorXd& v) {
  w.values(v.data(), int(v.size()));
}

// "file" (a .safetensors file, or a checkpoint's folder: its model.safetensors, else its index) or "index": the
// checkpoint's path on disk, as Checkpoint::open_path takes it.
Expected<std::string> checkpoint_path(FieldReader& r) {
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

Expected<Checkpoint> open_checkpoint(FieldReader& r) {
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
Expected<std::optional<HfConfig>> config_of(FieldReader& r) {
  const JsonValue* raw = r.value("config");
  const bool has_preset = r.has("preset");
  if (raw && has_preset) return bad_request("give either \"config\" or \"preset\", not both");
  if (raw && raw->kind == JsonValue::Kind::String) {
    Expected<HfConfig> c = config_file(raw->string, "config");
    if (!c) return c.error();
    return std::optional<HfConfig>(*c);
  }
  const JsonValue* cfg = r.object("config");
  const std::string preset = has_preset ? r.string("preset") : std::string();
  if (r.error) return *r.error;
  if (cfg) {
    auto parsed = hf_config_from_json(*cfg);
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

Expected<ModelCheckpoint> model_checkpoint(FieldReader& r) {
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

void nested(JsonWriter& w, const std::vector<std::vector<Eigen::VectorXd>>& g) {
  w.begin_array();
  for (const auto& layer : g) {
    w.begin_array();
    for (const Eigen::VectorXd& h : layer) vec(w, h);
    w.end_array();
  }
  w.end_array();
}

}  // namespace

std::optional<Error> op_weights(FieldReader& r, JsonWriter& w) {
  Expected<Checkpoint> c = open_checkpoint(r);
  if (!c) return c.error();
  w.begin_object().field("header_bytes", (long long)c->header_bytes()).field("file_bytes", (long long)c->file_bytes());
  w.key("metadata").begin_object();
  const auto& metadata = c->metadata();
  for (std::size_t i = 0; i < metadata.size(); ++i) {  // a repeated key: the last value, at the first one's place
    bool seen = false;
    for (std::size_t k = 0; k < i && !seen; ++k) seen = metadata[k].first == metadata[i].first;
    if (seen) continue;
    std::size_t last = i;
    for (std::size_t k = i + 1; k < metadata.size(); ++k)
      if (metadata[k].first == metadata[i].first) last = k;
    w.field(metadata[i].first.c_str(), metadata[last].second);
  }
  w.end_object().key("tensors").begin_array();
  for (const TensorInfo& t : c->tensors())
    w.begin_object()
        .field("name", t.name)
        .field("dtype", t.dtype)
        .key("shape")
        .list(t.shape)
        .field("file", t.file)
        .end_object();
  w.end_array().end_object();
  return std::nullopt;
}

std::optional<Error> op_learned_table(FieldReader& r, JsonWriter& w) {
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
  w.begin_object().field("tensor", found->tensor->name).field("dtype", found->tensor->dtype);
  w.field("rows", a.rows).field("dim", a.dim).field("offset", found->offset);
  vec(w.key("row_norm"), a.row_norm);
  vec(w.key("neighbour_cos"), a.neighbour_cos);
  vec(w.key("cos_by_offset"), a.cos_by_offset);
  vec(w.key("singular_values"), a.singular_values);
  vec(w.key("energy"), a.energy);
  w.field("rank90", a.rank90).field("rank99", a.rank99).key("components").begin_array();
  for (Eigen::Index j = 0; j < a.components.cols(); ++j) vec(w, a.components.col(j));
  w.end_array().end_object();
  return std::nullopt;
}

std::optional<Error> op_rope_usage(FieldReader& r, JsonWriter& w) {
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
  w.begin_object().field("model_type", u->model_type).key("layers").list(u->layers).field("heads", u->heads);
  w.field("kv_heads", u->kv_heads).field("head_dim", u->head_dim).field("rotary_dims", u->rotary_dims);
  w.field("pairing", pairing_name(u->pairing));
  vec(w.key("wavelength"), u->wavelength);
  nested(w.key("q"), u->q);
  nested(w.key("k"), u->k);
  vec(w.key("q_mean"), u->q_mean);
  vec(w.key("k_mean"), u->k_mean);
  w.end_object();
  return std::nullopt;
}

std::optional<Error> op_real_scores(FieldReader& r, JsonWriter& w) {
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
  w.begin_object().key("offsets").list(offs).key("score").list(s->score).end_object();
  return std::nullopt;
}

}  // namespace rv::cli
