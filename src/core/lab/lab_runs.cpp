// A lab's runs one at a time: one run's options, its JSON both ways, and a result gathered from runs (lab_runs.hpp).
#include "core/lab/lab_runs.hpp"

#include <algorithm>

#include "core/base/json_value.hpp"
#include "core/base/json_writer.hpp"

namespace rv {

LabOptions lab_run_options(const LabOptions& o, PositionMethod m, std::uint64_t seed) {
  LabOptions one = o;
  one.methods = {m};
  one.seed = seed;
  one.seeds = 1;
  return one;
}

std::vector<std::pair<PositionMethod, std::uint64_t>> lab_run_list(const LabOptions& o) {
  std::vector<std::pair<PositionMethod, std::uint64_t>> list;
  for (PositionMethod m : o.methods)
    for (int k = 0; k < o.seeds; ++k) list.emplace_back(m, o.seed + std::uint64_t(k));
  return list;
}

void write_lab_run(JsonWriter& w, const LabSeedRun& r) {
  w.begin_object().field("seed", (long long)r.seed).field("steps", r.steps_run);
  w.key("train_loss").list(r.train_loss);
  w.key("accuracy").list(r.accuracy);
  w.key("token_accuracy").list(r.token_accuracy);
  if (!r.accuracy_scaled.empty()) {
    w.key("accuracy_scaled").list(r.accuracy_scaled);
    w.key("token_accuracy_scaled").list(r.token_accuracy_scaled);
  }
  if (!r.accuracy_sequential.empty()) {
    w.key("accuracy_sequential").list(r.accuracy_sequential);
    w.key("token_accuracy_sequential").list(r.token_accuracy_sequential);
  }
  w.key("error");
  if (r.error) w.value(*r.error); else w.null();
  w.field("reached_bar", r.reached_bar);
  if (!r.table_row_change.empty()) w.key("table_row_change").list(r.table_row_change);
  w.end_object();
}

std::string lab_run_json(const LabSeedRun& r) {
  JsonWriter w(true);
  write_lab_run(w, r);
  return w.str();
}

namespace {
// A member of the run that must be a list of numbers (or null where `nulls`), into out; absent is an error unless
// `optional`.
std::optional<Error> read_list(const JsonValue& doc, const char* key, bool nulls, bool optional,
                               std::vector<std::optional<double>>& out) {
  const JsonValue* v = doc.find(key);
  if (!v && optional) return std::nullopt;
  if (!v || v->kind != JsonValue::Kind::Array)
    return bad_request(std::string("lab run: \"") + key + "\" must be a list");
  out.clear();
  for (const JsonValue& x : v->array) {
    if (x.kind == JsonValue::Kind::Null && nulls) {
      out.emplace_back();
      continue;
    }
    if (x.kind != JsonValue::Kind::Number)
      return bad_request(std::string("lab run: \"") + key + "\" holds a non-number");
    out.emplace_back(x.number);
  }
  return std::nullopt;
}

std::optional<Error> read_numbers(const JsonValue& doc, const char* key, bool optional, std::vector<double>& out) {
  std::vector<std::optional<double>> values;
  if (auto e = read_list(doc, key, false, optional, values)) return e;
  out.clear();
  for (const std::optional<double>& v : values) out.push_back(*v);
  return std::nullopt;
}

// The eval lengths a complete run of method m under o has numbers for (its scaled ones apart).
std::size_t eval_lengths(const LabOptions& o) {
  return std::size_t(4 * o.train_len);
}
}  // namespace

Expected<LabSeedRun> parse_lab_run(std::string_view json, const LabOptions& o, PositionMethod m) {
  const Expected<JsonValue> doc = parse_json(json);
  if (!doc) return bad_request("lab run: " + doc.error().message);
  if (doc->kind != JsonValue::Kind::Object) return bad_request("lab run: not an object");
  LabSeedRun r;
  const JsonValue* seed = doc->find("seed");
  const JsonValue* steps = doc->find("steps");
  const JsonValue* bar = doc->find("reached_bar");
  const JsonValue* error = doc->find("error");
  if (!seed || !seed->integer || seed->number < 0 || seed->number > double(kLabSeedMax))
    return bad_request("lab run: \"seed\" must be a seed");
  if (!steps || !steps->integer || steps->number < 0 || steps->number > kLabStepsMax)
    return bad_request("lab run: \"steps\" must be a step count");
  if (!bar || bar->kind != JsonValue::Kind::Boolean)
    return bad_request("lab run: \"reached_bar\" must be true or false");
  if (!error || (error->kind != JsonValue::Kind::Null && error->kind != JsonValue::Kind::String))
    return bad_request("lab run: \"error\" must be null or a message");
  r.seed = std::uint64_t(seed->number);
  r.steps_run = int(steps->number);
  r.reached_bar = bar->boolean;
  if (error->kind == JsonValue::Kind::String) r.error = error->string;
  if (auto e = read_numbers(*doc, "train_loss", false, r.train_loss)) return *e;
  if (auto e = read_list(*doc, "accuracy", true, false, r.accuracy)) return *e;
  if (auto e = read_list(*doc, "token_accuracy", true, false, r.token_accuracy)) return *e;
  if (auto e = read_list(*doc, "accuracy_scaled", true, true, r.accuracy_scaled)) return *e;
  if (auto e = read_list(*doc, "token_accuracy_scaled", true, true, r.token_accuracy_scaled)) return *e;
  if (auto e = read_list(*doc, "accuracy_sequential", true, true, r.accuracy_sequential)) return *e;
  if (auto e = read_list(*doc, "token_accuracy_sequential", true, true, r.token_accuracy_sequential)) return *e;
  if (auto e = read_numbers(*doc, "table_row_change", true, r.table_row_change)) return *e;
  const bool scaled = m == PositionMethod::Rope && o.rope_scaling != ScalingType::None;
  const bool random = o.positions == LabPositions::Random;
  const std::size_t n = eval_lengths(o);
  r.evaluated = r.accuracy.size() == n && r.token_accuracy.size() == n &&
                (!scaled || (r.accuracy_scaled.size() == n && r.token_accuracy_scaled.size() == n)) &&
                (!random || (r.accuracy_sequential.size() == n && r.token_accuracy_sequential.size() == n));
  return r;
}

LabResult lab_gather(const LabOptions& o, std::vector<LabGathered> runs) {
  LabResult out;
  out.options = o;
  for (PositionMethod m : o.methods) {
    LabMethodResult method;
    method.method = m;
    for (int k = 0; k < o.seeds; ++k)
      for (LabGathered& g : runs)
        if (g.method == m && g.run.seed == o.seed + std::uint64_t(k)) {
          method.runs.push_back(std::move(g.run));
          out.seconds += g.seconds;
          out.train_seconds += g.train_seconds;
          out.tokens_trained += g.tokens_trained;
          g.run.seed = ~std::uint64_t(0);  // taken (a second run of the same seed is ignored)
          break;
        }
    if (method.runs.empty()) continue;
    lab_combine_runs(method);
    out.methods.push_back(std::move(method));
  }
  return out;
}

}  // namespace rv
