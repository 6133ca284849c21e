// The weights and learned_table ops over core's checkpoint reader (cli/eval_weights.hpp).
#include "cli/eval_weights.hpp"

#include "core/models/json_config.hpp"
#include "core/models/presets.hpp"
#include "core/weights/learned_table.hpp"

namespace rv::cli {
namespace {

json vec(const Eigen::VectorXd& v) {
  return json(std::vector<double>(v.data(), v.data() + v.size()));
}

// "file" or "index": the checkpoint on disk.
Expected<Checkpoint> open_checkpoint(Request& r) {
  const bool file = r.has("file"), index = r.has("index");
  if (file && index) return bad_request("give either \"file\" or \"index\", not both");
  if (!file && !index)
    return bad_request("missing required field \"file\" (a .safetensors path) or \"index\" (model.safetensors.index.json)");
  const std::string path = r.string(file ? "file" : "index");
  if (r.error) return *r.error;
  if (index && (path.size() < 5 || path.compare(path.size() - 5, 5, ".json") != 0))
    return bad_request("\"index\" must name a .json file (model.safetensors.index.json), got \"" + path + "\"");
  if (file) {
    const std::size_t slash = path.find_last_of('/');
    return Checkpoint::open_file(slash == std::string::npos ? path : path.substr(slash + 1),
                                 disk_opener(slash == std::string::npos ? "" : path.substr(0, slash)));
  }
  return Checkpoint::open_path(path);
}

// The model_type of "config" or "preset", "" with neither.
Expected<std::string> model_type_of(Request& r) {
  const json* cfg = r.object("config");
  const bool has_preset = r.has("preset");
  const std::string preset = has_preset ? r.string("preset") : std::string();
  if (r.error) return *r.error;
  if (cfg && has_preset) return bad_request("give either \"config\" or \"preset\", not both");
  std::optional<HfConfig> c;
  if (cfg) {
    auto parsed = parse_hf_config(cfg->dump());
    if (!parsed) return bad_request("config: " + parsed.error().message);
    c = *parsed;
  } else if (has_preset) {
    const Preset* p = find_preset(preset);
    if (!p) return bad_request("unknown preset \"" + preset + "\"");
    auto parsed = preset_config(*p);
    if (!parsed) return parsed.error();
    c = *parsed;
  }
  return c && c->model_type ? *c->model_type : std::string();
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
  Expected<std::string> type = model_type_of(r);
  if (!type) return type.error();
  if (has_offset && (offset < 0 || offset > 1000000)) return bad_request("\"offset\" must be in [0, 1000000]");
  Expected<Checkpoint> c = open_checkpoint(r);
  if (!c) return c.error();
  Expected<FoundTable> found = find_learned_table(c.value(), tensor, has_offset ? int(offset) : learned_table_offset(*type));
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

}  // namespace rv::cli
