// The forward op over core's forward pass (cli/eval_forward.hpp).
#include "cli/eval_forward.hpp"

#include <algorithm>

#include "cli/eval_weights.hpp"
#include "core/infer/forward.hpp"
#include "core/models/json_config.hpp"

namespace rv::cli {
namespace {

constexpr double kMaxOutputNumbers = 1e7;  // logits refused above this many numbers
const char* const kOutputs[] = {"nll", "logits", "attention_by_distance", "sink"};

// "rope_scaling": "none", or an object of section 5's fields, read by the config reader itself.
std::optional<Error> read_scaling(const json& v, ForwardOptions& o) {
  if (v.is_string() && v.get<std::string>() == "none") {
    o.rope = RopeAtInference::None;
    return std::nullopt;
  }
  if (!v.is_object()) return bad_request("\"rope_scaling\" must be \"none\" or a rope_scaling object");
  Expected<HfConfig> c = parse_hf_config("{\"rope_scaling\":" + v.dump() + "}");
  if (!c) return c.error();
  o.rope = RopeAtInference::Replace;
  o.rope_scaling = c->rope_scaling.value_or(HfRopeScaling{});
  return std::nullopt;
}

// "tokens", or "text" as its UTF-8 bytes for a byte-level model (vocab_size 256).
std::optional<Error> read_tokens(Request& r, const HfConfig& config, Checkpoint& c, ForwardOptions& o) {
  if (r.has("tokens") == r.has("text")) return bad_request("give either \"tokens\" (ids) or \"text\"");
  if (r.has("tokens")) {
    o.tokens = r.integers("tokens", std::size_t(kMaxForwardTokens));
    return r.error;
  }
  const std::string text = r.string("text");
  if (r.error) return r.error;
  if (r.has("tokenizer"))
    return bad_request("\"tokenizer\": encoding text with a tokenizer.json is not in this build; give \"tokens\", or "
                       "\"text\" for a byte-level model (vocab_size 256)");
  Expected<long long> vocab = forward_vocab(c, config);
  if (!vocab) return vocab.error();
  if (*vocab != 256)
    return bad_request("\"text\" without a tokenizer needs a byte-level model (vocab_size 256); this one has " +
                       std::to_string(*vocab) + " tokens: give \"tokens\"");
  if (text.size() > std::size_t(kMaxForwardTokens))
    return bad_request("\"text\" is " + std::to_string(text.size()) + " bytes; a pass takes at most " +
                       std::to_string(kMaxForwardTokens));
  for (unsigned char b : text) o.tokens.push_back(b);
  return std::nullopt;
}

json nested(const std::vector<std::vector<double>>& v) {
  json out = json::array();
  for (const auto& row : v) out.push_back(row);
  return out;
}

}  // namespace

Expected<json> op_forward(Request& r) {
  Expected<ModelCheckpoint> loaded = model_checkpoint(r);
  if (!loaded) return loaded.error();
  ModelCheckpoint* m = &loaded.value();
  ForwardOptions o;
  if (auto e = read_tokens(r, m->config, m->checkpoint, o)) return *e;
  if (r.has("positions")) o.positions = r.integers("positions", std::size_t(kMaxForwardTokens));
  const std::string rope = r.has("rope") ? r.string("rope") : "apply";
  if (r.error) return *r.error;
  if (rope != "apply" && rope != "drop") return bad_request("\"rope\" must be \"apply\" or \"drop\", got \"" + rope + "\"");
  if (const json* s = r.value("rope_scaling"))
    if (auto e = read_scaling(*s, o)) return bad_request("\"rope_scaling\": " + e->message);
  if (rope == "drop") o.rope = RopeAtInference::Drop;
  std::vector<std::string> outputs = {"nll"};
  if (r.has("outputs")) {
    const json* list = r.array("outputs", "a list of output names");
    if (!list) return *r.error;
    outputs.clear();
    for (const json& v : *list) {
      const std::string name = v.is_string() ? v.get<std::string>() : std::string();
      if (std::find(std::begin(kOutputs), std::end(kOutputs), name) == std::end(kOutputs))
        return bad_request("\"outputs\": " + (v.is_string() ? "\"" + name + "\"" : v.dump()) +
                           " is not one of nll, logits, attention_by_distance, sink");
      outputs.push_back(name);
    }
  }
  const auto wants = [&](const char* name) { return std::find(outputs.begin(), outputs.end(), name) != outputs.end(); };
  o.logits = wants("logits");
  o.attention_by_distance = wants("attention_by_distance");
  o.sink = wants("sink");
  if (o.logits) {
    Expected<long long> vocab = forward_vocab(m->checkpoint, m->config);
    if (!vocab) return vocab.error();
    if (double(o.tokens.size()) * double(*vocab) > kMaxOutputNumbers)
      return bad_request("\"logits\" would be " + std::to_string(o.tokens.size()) + " x " + std::to_string(*vocab) +
                         " numbers, over the limit of 10^7");
  }
  Expected<ForwardResult> f = forward(m->checkpoint, m->config, o);
  if (!f) return f.error();
  json out;
  if (wants("nll")) out["nll"] = f->nll;
  if (o.logits) {
    json rows = json::array();
    for (Eigen::Index t = 0; t < f->logits.rows(); ++t)
      rows.push_back(std::vector<float>(f->logits.row(t).data(), f->logits.row(t).data() + f->logits.cols()));
    out["logits"] = rows;
  }
  if (o.attention_by_distance) {
    json layers = json::array();
    for (const auto& l : f->by_distance) layers.push_back(nested(l));
    out["attention_by_distance"] = layers;
  }
  if (o.sink) out["sink"] = nested(f->sink);
  return out;
}

}  // namespace rv::cli
