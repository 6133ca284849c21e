// The forward op over core's forward pass (cli/eval_forward.hpp).
#include "cli/eval_forward.hpp"

#include <algorithm>
#include <memory>
#include <thread>

#include "cli/eval_tokenize.hpp"
#include "cli/json_text.hpp"
#include "cli/eval_weights.hpp"
#include "core/base/format.hpp"
#include "core/infer/forward.hpp"
#include "core/models/json_config.hpp"

namespace rv::cli {
namespace {

constexpr double kMaxOutputNumbers = 1e7;  // logits, attention and hidden refused above this many numbers each
const char* const kOutputs[] = {"nll",  "logits",       "attention", "hidden", "attention_by_distance",
                                "sink", "qk_pair_norms"};

// "rope_scaling": "none", or an object of section 5's fields, read by the config reader itself.
std::optional<Error> read_scaling(const JsonValue& v, ForwardOptions& o) {
  if (v.kind == JsonValue::Kind::String && v.string == "none") {
    o.rope = RopeAtInference::None;
    return std::nullopt;
  }
  if (v.kind != JsonValue::Kind::Object)
    return bad_request("\"rope_scaling\" must be \"none\" or a rope_scaling object");
  JsonValue config;
  config.kind = JsonValue::Kind::Object;
  config.object.emplace_back("rope_scaling", v);
  Expected<HfConfig> c = hf_config_from_json(config);
  if (!c) return c.error();
  o.rope = RopeAtInference::Replace;
  o.rope_scaling = c->rope_scaling.value_or(HfRopeScaling{});
  return std::nullopt;
}

// "tokens"; or "text" through the request's text encoder (m null: the text's fields checked, not encoded).
std::optional<Error> read_tokens(FieldReader& r, ModelCheckpoint* m, ForwardOptions& o) {
  if (r.has("tokens") == r.has("text")) return bad_request("give either \"tokens\" (ids) or \"text\"");
  if (r.has("tokens")) {
    o.tokens = r.integers("tokens", std::size_t(kMaxForwardTokens));
    return r.error;
  }
  const std::string text = r.string("text");
  const bool special = r.boolean("add_special_tokens", false);
  if (r.error || !m) return r.error;
  Expected<Encoder> encode = text_encoder(r, *m);
  if (!encode) return encode.error();
  Expected<std::vector<long long>> ids = (*encode)(text, special);
  if (!ids) return ids.error();
  o.tokens = std::move(*ids);
  if (o.tokens.size() > std::size_t(kMaxForwardTokens))
    return bad_request("\"text\" is " + std::to_string(o.tokens.size()) + " tokens; a pass takes at most " +
                       std::to_string(kMaxForwardTokens));
  return std::nullopt;
}

// A float matrix as rows of numbers, each written as the double it is (0.1f: 0.10000000149011612).
void rows(JsonWriter& w, const RowMatrixXf& m) {
  w.begin_array();
  for (Eigen::Index t = 0; t < m.rows(); ++t) {
    w.begin_array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) w.value(double(m(t, j)));
    w.end_array();
  }
  w.end_array();
}

void nested(JsonWriter& w, const std::vector<std::vector<double>>& v) {
  w.begin_array();
  for (const auto& row : v) w.list(row);
  w.end_array();
}

}  // namespace

std::optional<Error> read_pass_options(FieldReader& r, ForwardOptions& o) {
  // threads: the machine's by default (the numbers are the same for any count)
  const long long threads = r.integer("threads", std::max(1u, std::min(16u, std::thread::hardware_concurrency())));
  const std::string rope = r.has("rope") ? r.string("rope") : "apply";
  if (r.error) return *r.error;
  if (threads < 1 || threads > 64) return bad_request("\"threads\" must be in [1, 64], got " + std::to_string(threads));
  o.threads = int(threads);
  if (rope != "apply" && rope != "drop")
    return bad_request("\"rope\" must be \"apply\" or \"drop\", got \"" + rope + "\"");
  if (const JsonValue* s = r.value("rope_scaling"))
    if (auto e = read_scaling(*s, o)) return bad_request("\"rope_scaling\": " + e->message);
  if (rope == "drop") o.rope = RopeAtInference::Drop;
  return std::nullopt;
}

Expected<Encoder> text_encoder(FieldReader& r, ModelCheckpoint& m) {
  std::shared_ptr<const tokenize::Tokenizer> shared = m.tokenizer;
  if (r.has("tokenizer")) {
    Expected<tokenize::Tokenizer> t = request_tokenizer(r);
    if (!t) return t.error();
    shared = std::make_shared<const tokenize::Tokenizer>(std::move(*t));
  }
  if (shared)
    return Encoder([shared](std::string_view text, bool special) -> Expected<std::vector<long long>> {
      return tokenize::encode(*shared, text, special).ids;
    });
  Expected<ForwardShape> shape = forward_shape(m.checkpoint, m.config);
  if (!shape) return shape.error();
  if (shape->vocab != 256)
    return bad_request(
        "\"text\" needs a \"tokenizer\" (a tokenizer.json) or a byte-level model (vocab_size 256); "
        "this one has " +
        std::to_string(shape->vocab) + " tokens (or give \"tokens\")");
  return Encoder([](std::string_view text, bool) -> Expected<std::vector<long long>> {
    return std::vector<long long>(reinterpret_cast<const unsigned char*>(text.data()),
                                  reinterpret_cast<const unsigned char*>(text.data()) + text.size());
  });
}

std::optional<Error> op_forward(FieldReader& r, JsonWriter& w) {
  Expected<ModelCheckpoint> loaded = model_checkpoint(r);
  if (!loaded) return loaded.error();
  return forward_document(r, loaded.value(), w);
}

namespace {

// Every field forward reads, into o and outputs (m null: what can be checked without the checkpoint).
std::optional<Error> read_forward(FieldReader& r, ModelCheckpoint* m, ForwardOptions& o,
                                  std::vector<std::string>& outputs) {
  if (auto e = read_tokens(r, m, o)) return *e;
  if (r.has("positions")) o.positions = r.integers("positions", std::size_t(kMaxForwardTokens));
  if (r.error) return *r.error;
  if (auto e = read_pass_options(r, o)) return *e;
  outputs = {"nll"};
  if (r.has("outputs")) {
    const JsonValue* list = r.array("outputs", "a list of output names");
    if (!list) return *r.error;
    outputs.clear();
    for (const JsonValue& v : list->array) {
      const bool is_string = v.kind == JsonValue::Kind::String;
      const std::string name = is_string ? v.string : std::string();
      if (std::find(std::begin(kOutputs), std::end(kOutputs), name) == std::end(kOutputs))
        return bad_request("\"outputs\": " + (is_string ? "\"" + name + "\"" : json_text(v)) +
                           " is not one of nll, logits, attention, hidden, attention_by_distance, sink, "
                           "qk_pair_norms");
      outputs.push_back(name);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Error> check_forward_request(FieldReader& r) {
  ForwardOptions o;
  std::vector<std::string> outputs;
  return read_forward(r, nullptr, o, outputs);
}

std::optional<Error> forward_document(FieldReader& r, ModelCheckpoint& model, JsonWriter& w) {
  ModelCheckpoint* m = &model;
  ForwardOptions o;
  std::vector<std::string> outputs;
  if (auto e = read_forward(r, m, o, outputs)) return *e;
  const auto wants = [&](const char* name) { return std::find(outputs.begin(), outputs.end(), name) != outputs.end(); };
  o.logits = wants("logits");
  o.attention_by_distance = wants("attention_by_distance");
  o.sink = wants("sink");
  o.attention = wants("attention");
  o.hidden = wants("hidden");
  o.qk_pair_norms = wants("qk_pair_norms");
  if (o.logits || o.attention || o.hidden) {
    Expected<ForwardShape> s = forward_shape(m->checkpoint, m->config);
    if (!s) return s.error();
    const double T = double(o.tokens.size());
    for (auto [on, name, count] : {std::tuple{o.logits, "logits", T * double(s->vocab)},
                                   {o.attention, "attention", double(s->layers) * s->heads * T * T},
                                   {o.hidden, "hidden", double(s->layers + 1) * T * double(s->d)}})
      if (on && count > kMaxOutputNumbers)
        return bad_request("\"" + std::string(name) + "\" would be " + format_number(count) +
                           " numbers, over the limit of 10^7: ask for fewer tokens");
  }
  Expected<ForwardResult> f = forward(m->checkpoint, m->config, o);
  if (!f) return f.error();
  w.begin_object();
  if (wants("nll")) w.key("nll").list(f->nll);
  if (o.logits) rows(w.key("logits"), f->logits);
  if (o.attention_by_distance) {
    w.key("attention_by_distance").begin_array();
    for (const auto& l : f->by_distance) nested(w, l);
    w.end_array();
  }
  if (o.sink) nested(w.key("sink"), f->sink);
  if (o.attention) {
    w.key("attention").begin_array();
    for (const auto& heads : f->attention) {
      w.begin_array();
      for (const RowMatrixXf& p : heads) rows(w, p);
      w.end_array();
    }
    w.end_array();
  }
  if (o.hidden) {
    w.key("hidden").begin_array();
    for (const RowMatrixXf& h : f->hidden) rows(w, h);
    w.end_array();
  }
  if (o.qk_pair_norms) {
    w.key("qk_pair_norms").begin_object().key("q").begin_array();
    for (const auto& l : f->q_pair_norms) nested(w, l);
    w.end_array().key("k").begin_array();
    for (const auto& l : f->k_pair_norms) nested(w, l);
    w.end_array().end_object();
  }
  w.end_object();
  return std::nullopt;
}

}  // namespace rv::cli
