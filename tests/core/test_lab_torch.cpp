// The lab's PyTorch export: the script carries the run's options, and the data file holds LabRun's initial weights
// and first batches in the right shapes (read back with rv's JSON reader). The script is src/core/lab/ropeviz_lab.py
// with the run's options on its one marked line, DEFAULTS: the file itself for the default options.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/json_value.hpp"
#include "core/lab/lab_torch.hpp"
#include "test_util.hpp"

using namespace rv;

namespace {

using rv::test::contains;

// Options away from every default, so that a default leaking into the script shows.
LabOptions unusual() {
  LabOptions o;
  o.task = LabTask::Reverse;
  o.methods = {PositionMethod::T5, PositionMethod::Learned, PositionMethod::Rope};
  o.train_len = 5;
  o.steps = 123;
  o.seed = 42;
  o.d_model = 24;
  o.heads = 3;
  o.layers = 2;
  o.d_ff = 40;
  o.batch = 17;
  o.lr = 0.0025;
  o.weight_decay = 0.02;
  o.warmup = 7;
  o.eval_count = 33;
  o.check_every = 11;
  return o;
}

// Options away from every default on the scaling flags too.
LabOptions scaled() {
  LabOptions o = unusual();
  o.rope_scaling = ScalingType::Yarn;
  o.rope_factor = 8;
  o.table_len = 30;
  return o;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kScriptFile = RV_SOURCE_DIR "/src/core/lab/ropeviz_lab.py";

const std::string kDefaultsStart = "DEFAULTS = ";
const std::string kDefaultsMark = "  # ropeviz-cli lab-export writes this line";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool is_marked(const std::string& line) {
  return line.rfind(kDefaultsStart, 0) == 0 && line.size() >= kDefaultsStart.size() + kDefaultsMark.size() &&
         line.compare(line.size() - kDefaultsMark.size(), kDefaultsMark.size(), kDefaultsMark) == 0;
}

// Where lab_torch.hpp says lab_torch_script writes the run: the one line starting "DEFAULTS = " and ending with the
// mark; -1 unless there is exactly one (and no other line starts "DEFAULTS").
int marked_line(const std::vector<std::string>& lines) {
  int at = -1, defaults = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("DEFAULTS", 0) == 0) ++defaults;
    if (is_marked(lines[i])) at = at == -1 ? static_cast<int>(i) : -2;
  }
  return defaults == 1 && at >= 0 ? at : -1;
}

// The marked line's dict. A Python dict literal of strings, integers and floats is JSON text as well (true, false
// and null are the only spellings apart, and the options have none), so rv's reader reads it as Python would.
Expected<JsonValue> defaults_dict(const std::string& line) {
  return parse_json(line.substr(kDefaultsStart.size(), line.size() - kDefaultsStart.size() - kDefaultsMark.size()));
}

// The dict holds exactly the options, in lab_torch_script's order, integers as Python ints and the real-valued
// options as Python floats (argparse keeps a default's type).
void check_defaults(const JsonValue& d, const LabOptions& o) {
  std::string methods;
  for (PositionMethod m : o.methods) methods += (methods.empty() ? "" : ",") + std::string(position_method_name(m));
  const std::pair<const char*, std::string> strings[] = {{"task", lab_task_name(o.task)},
                                                         {"methods", methods},
                                                         {"pairing", "interleaved"},
                                                         {"positions", lab_positions_name(o.positions)},
                                                         {"rope_scaling", lab_scaling_name(o.rope_scaling)}};
  const std::pair<const char*, double> integers[] = {
      {"train_len", o.train_len},   {"table_len", o.table_len},
      {"steps", o.steps},           {"seed", static_cast<double>(o.seed)}, {"seeds", o.seeds},
      {"position_range", o.position_range},
      {"d_model", o.d_model},       {"heads", o.heads},
      {"layers", o.layers},         {"d_ff", o.d_ff},
      {"batch", o.batch},           {"warmup", o.warmup},
      {"eval_count", o.eval_count}, {"check_every", o.check_every}};
  const std::pair<const char*, double> reals[] = {
      {"lr", o.lr}, {"weight_decay", o.weight_decay}, {"base", 10000.0}, {"rope_factor", o.rope_factor}};
  const char* order[] = {"task",         "methods",        "train_len", "table_len",  "steps",       "seed", "seeds",
                         "positions",    "position_range", "d_model",   "heads",      "layers",      "d_ff", "batch",
                         "lr",           "weight_decay",   "warmup",    "eval_count", "check_every", "base", "pairing",
                         "rope_scaling", "rope_factor"};
  REQUIRE(d.kind == JsonValue::Kind::Object);
  REQUIRE(d.object.size() == std::size(order));
  for (std::size_t i = 0; i < std::size(order); ++i) CHECK(d.object[i].first == order[i]);
  for (const auto& [key, value] : strings) {
    const auto& name = key;  // clang cannot capture a structured binding in INFO's lambda
    INFO(name);
    REQUIRE(d.find(key));
    CHECK(d.find(key)->kind == JsonValue::Kind::String);
    CHECK(d.find(key)->string == value);
  }
  for (const auto& [key, value] : integers) {
    const auto& name = key;
    INFO(name);
    REQUIRE(d.find(key));
    CHECK(d.find(key)->integer);
    CHECK(d.find(key)->number == value);
  }
  for (const auto& [key, value] : reals) {
    const auto& name = key;
    INFO(name);
    REQUIRE(d.find(key));
    CHECK(d.find(key)->kind == JsonValue::Kind::Number);
    CHECK(!d.find(key)->integer);  // 10000.0, not 10000
    CHECK(d.find(key)->number == value);
  }
}

std::vector<long long> ints(const JsonValue& row) {
  std::vector<long long> out;
  for (const JsonValue& x : row.array) out.push_back(static_cast<long long>(x.number));
  return out;
}

// Step s's rows rebuilt from make_lab_batch, as lab_train_batch documents them: sizes from lab_seed(seed, 1, s), then
// the rows of each size present from NormalRng(next_u64()).
LabBatch batch_from_make_lab_batch(const LabOptions& o, int s) {
  NormalRng rng(lab_seed(o.seed, 1, static_cast<std::uint64_t>(s)));
  std::vector<int> count(static_cast<std::size_t>(o.train_len + 1), 0);
  for (int r = 0; r < o.batch; ++r)
    ++count[static_cast<std::size_t>(1 + static_cast<int>(rng.uniform() * o.train_len))];
  LabBatch out;
  for (int n = 1; n <= o.train_len; ++n) {
    if (count[static_cast<std::size_t>(n)] == 0) continue;
    const LabBatch part = make_lab_batch(o.task, n, count[static_cast<std::size_t>(n)], rng.next_u64());
    out.tokens.insert(out.tokens.end(), part.tokens.begin(), part.tokens.end());
    out.targets.insert(out.targets.end(), part.targets.begin(), part.targets.end());
  }
  return out;
}

}  // namespace

TEST_CASE("lab torch script: the run's options are the flags' defaults, on the marked DEFAULTS line") {
  for (const LabOptions& o : {unusual(), scaled()}) {
    const std::string py = lab_torch_script(o);
    const std::vector<std::string> lines = lines_of(py);
    const int at = marked_line(lines);
    REQUIRE(at >= 0);
    const std::string& line = lines[static_cast<std::size_t>(at)];
    INFO(line);
    const Expected<JsonValue> d = defaults_dict(line);
    REQUIRE(d);
    check_defaults(*d, o);
    CHECK(contains(line, "\"lr\": 0.0025, \"weight_decay\": 0.02, "));  // as Python writes them
    CHECK(contains(line, "\"base\": 10000.0, "));
    CHECK(contains(py, "import torch\n"));
  }
  const std::string py = lab_torch_script(unusual());
  CHECK(contains(py, "DEFAULTS = {\"task\": \"reverse\", \"methods\": \"t5,learned,rope\", \"train_len\": 5, "));
  CHECK(
      contains(lab_torch_script(scaled()), "\"rope_scaling\": \"yarn\", \"rope_factor\": 8.0}" + kDefaultsMark + "\n"));
  CHECK(py.rfind("#!/usr/bin/env python3\n", 0) == 0);
  CHECK(!contains(py, "numpy"));       // PyTorch and the standard library only
  CHECK(contains(py, "BAR = 0.95 "));  // kLabBar
  CHECK(lab_torch_script(LabOptions()) != py);
  CHECK(contains(lab_torch_script(LabOptions()), ", \"steps\": 2000, "));
}

TEST_CASE("lab torch script: the default options write src/core/lab/ropeviz_lab.py byte for byte") {
  const std::string file = read_file(kScriptFile);
  REQUIRE(!file.empty());
  CHECK(std::string(detail::lab_torch_script_file()) == file);  // the build embeds the file as it is
  CHECK(lab_torch_script(LabOptions()) == file);  // the file's defaults are LabOptions()'s, in lab_torch_script's form
  const std::vector<std::string> lines = lines_of(file);
  const int at = marked_line(lines);
  REQUIRE(at >= 0);
  const Expected<JsonValue> d = defaults_dict(lines[static_cast<std::size_t>(at)]);
  REQUIRE(d);
  check_defaults(*d, LabOptions());
  // Nothing else carries the run: the docstring's commands name no flags (--print-command prints them).
  for (const char* flag : {"--task copy", "--train-len 3", "--steps 2000", "--seed 0", "--check-every 50"}) {
    INFO(flag);
    CHECK(!contains(file, flag));
  }
  CHECK(contains(file, "--print-command"));
}

TEST_CASE("lab torch script: other options change the marked DEFAULTS line, nothing else") {
  const std::vector<std::string> in_file = lines_of(read_file(kScriptFile));
  const int at = marked_line(in_file);
  REQUIRE(at >= 0);
  LabOptions short_run;  // a shorter line
  short_run.methods = {PositionMethod::Rope};
  short_run.steps = 5;
  LabOptions factor_only;  // only the factor, without scaling
  factor_only.rope_factor = 2.5;
  for (const LabOptions& o : {unusual(), scaled(), short_run, factor_only}) {
    const std::vector<std::string> filled = lines_of(lab_torch_script(o));
    REQUIRE(filled.size() == in_file.size());
    REQUIRE(marked_line(filled) == at);
    for (std::size_t i = 0; i < filled.size(); ++i) {
      INFO("line ", i + 1, ": ", filled[i]);
      CHECK((filled[i] == in_file[i]) == (static_cast<int>(i) != at));  // the marked line differs, no other
    }
    const Expected<JsonValue> d = defaults_dict(filled[static_cast<std::size_t>(at)]);
    REQUIRE(d);
    check_defaults(*d, o);
  }
}

TEST_CASE("lab torch data: LabRun's initial weights and first batches, in the contract's shapes") {
  const LabOptions o = unusual();
  const Expected<JsonValue> doc = parse_json(lab_torch_data(o, 4));
  REQUIRE(doc);
  CHECK(doc->find("format")->string == "ropeviz-lab-data");
  CHECK(doc->find("version")->number == 1);
  const JsonValue& opts = *doc->find("options");
  CHECK(opts.find("task")->string == "reverse");
  CHECK(opts.find("seed")->number == 42);
  CHECK(opts.find("batch")->number == 17);
  CHECK(opts.find("d_ff")->number == 40);
  CHECK(opts.find("lr")->number == 0.0025);
  CHECK(opts.find("vocab")->number == kLabVocab);
  CHECK(opts.find("sep")->number == kLabSep);
  {  // the options are the script's DEFAULTS, the same values, then vocab and sep
    const std::vector<std::string> lines = lines_of(lab_torch_script(o));
    const int at = marked_line(lines);
    REQUIRE(at >= 0);
    const Expected<JsonValue> defaults = defaults_dict(lines[static_cast<std::size_t>(at)]);
    REQUIRE(defaults);
    REQUIRE(opts.object.size() == defaults->object.size() + 2);
    for (std::size_t i = 0; i < defaults->object.size(); ++i) {
      const auto& [key, value] = defaults->object[i];
      const auto& name = key;
      INFO(name);
      CHECK(opts.object[i].first == key);
      CHECK(opts.object[i].second.kind == value.kind);
      CHECK(opts.object[i].second.number == value.number);
      CHECK(opts.object[i].second.string == value.string);
    }
  }

  const JsonValue& batches = *doc->find("batches");
  REQUIRE(batches.array.size() == 4);
  SequenceBatch b;
  for (int s = 0; s < 4; ++s) {
    INFO("step ", s);
    const JsonValue& batch = batches.array[static_cast<std::size_t>(s)];
    CHECK(batch.find("step")->number == s);
    const LabBatch want = batch_from_make_lab_batch(o, s);
    const JsonValue& tokens = *batch.find("tokens");
    const JsonValue& targets = *batch.find("targets");
    REQUIRE(tokens.array.size() == 17);
    REQUIRE(targets.array.size() == 17);
    lab_train_batch(o, s, b);
    REQUIRE(b.sequences() == 17);
    for (std::size_t r = 0; r < 17; ++r) {
      CHECK(ints(tokens.array[r]) == want.tokens[r]);
      CHECK(ints(targets.array[r]) == want.targets[r]);
      CHECK(static_cast<int>(tokens.array[r].array.size()) == b.length[r]);
    }
  }

  const JsonValue& methods = *doc->find("methods");
  REQUIRE(methods.object.size() == 3);
  for (PositionMethod m : o.methods) {
    INFO(position_method_name(m));
    const JsonValue* entry = methods.find(position_method_name(m));
    REQUIRE(entry);
    const DecoderConfig c = lab_decoder_config(o, m);
    const JsonValue& config = *entry->find("config");
    CHECK(config.find("position")->string == position_method_name(m));
    CHECK(config.find("max_position")->number == 10);  // reverse: 2 * train_len
    CHECK(config.find("vocab")->number == kLabVocab);
    const DecoderWeightsT<float> init = lab_init_weights(o, m);
    const std::vector<WeightRef<const float>> refs = weight_refs(c, init);
    const std::vector<WeightRef<double>> specs = weight_specs(c);
    const JsonValue& weights = *entry->find("weights");
    REQUIRE(weights.object.size() == refs.size());
    for (std::size_t i = 0; i < refs.size(); ++i) {
      const std::string name = refs[i].name;
      INFO(name);
      CHECK(weights.object[i].first == refs[i].name);  // the contract's order
      const std::vector<JsonValue>& values = weights.object[i].second.array;
      long long size = 1;
      for (long long n : specs[i].shape) size *= n;
      REQUIRE(static_cast<long long>(values.size()) == size);
      bool exact = true;  // each the shortest decimal that reads back as the same float
      for (long long k = 0; k < size; ++k) exact = exact && static_cast<float>(values[k].number) == refs[i].data[k];
      CHECK(exact);
    }
  }
  CHECK(parse_json(lab_torch_data(o, 0))->find("batches")->array.empty());
}

TEST_CASE("lab torch data: LabRun trains from these weights on these batches") {
  LabOptions o = unusual();
  o.methods = {PositionMethod::Alibi};
  o.steps = 1;
  o.check_every = 0;
  const LabResult r = run_lab(o);  // its one loss: the data file's weights on the data file's batch of step 0
  const Expected<JsonValue> doc = parse_json(lab_torch_data(o, 1));
  REQUIRE(doc);
  const DecoderConfig c = lab_decoder_config(o, PositionMethod::Alibi);
  DecoderWeightsT<float> w = zero_weights<float>(c);
  const JsonValue& weights = *doc->find("methods")->find("alibi")->find("weights");
  for (WeightRef<float>& ref : weight_refs(c, w))
    for (long long k = 0; k < ref.size; ++k) ref.data[k] = static_cast<float>(weights.find(ref.name)->array[k].number);
  const JsonValue& batch = doc->find("batches")->array[0];
  TokenRows tokens, targets;
  for (const JsonValue& row : batch.find("tokens")->array) tokens.push_back(ints(row));
  for (const JsonValue& row : batch.find("targets")->array) targets.push_back(ints(row));
  DecoderWorkspace<float> ws;
  CHECK(batch_forward(c, w, sequence_batch(tokens, targets), ws, false) == r.methods[0].first().train_loss[0]);
}
