// The lab's PyTorch export: the script carries the run's options, and the data file holds LabRun's initial weights
// and first batches in the right shapes (read back with rv's JSON reader). The script is src/core/lab/ropeviz_lab.py
// with the run's options in three places: the file itself for the default options.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/json_value.hpp"
#include "core/lab/lab_torch.hpp"

using namespace rv;

namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

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

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kScriptFile = RV_SOURCE_DIR "/src/core/lab/ropeviz_lab.py";

// A script cut where lab_torch.hpp says lab_torch_script writes the run: DEFAULTS' body (the lines between
// "DEFAULTS = {" and "}") and the flags of the docstring's two commands (with the lines a backslash continues).
struct ScriptPlaces {
  std::string rest;                 // the text without them
  std::vector<std::string> places;  // what stood there, in order: the two commands' flags, DEFAULTS' body
};
ScriptPlaces split_places(const std::string& text) {
  const std::string commands[] = {"    ropeviz-cli lab-export DIR ", "    ropeviz-cli lab "};
  ScriptPlaces out;
  std::istringstream in(text);
  bool defaults = false, command = false;  // inside DEFAULTS' body, inside a command's continuation lines
  for (std::string line; std::getline(in, line);) {
    const bool continued = !line.empty() && line.back() == '\\';
    if (defaults && line != "}") {
      out.places.back() += line + "\n";
    } else if (command) {
      out.places.back() += "\n" + line;
      command = continued;
    } else {
      defaults = line == "DEFAULTS = {";
      if (defaults) out.places.emplace_back();
      std::string kept = line;
      for (const std::string& c : commands)
        if (line.rfind(c, 0) == 0) {
          out.places.push_back(line.substr(c.size()));
          kept = c;
          command = continued;
          break;
        }
      out.rest += kept + "\n";
    }
  }
  return out;
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

TEST_CASE("lab torch script: the run's options are the flags' defaults") {
  const LabOptions o = unusual();
  const std::string py = lab_torch_script(o);
  for (const char* line :
       {"\"task\": \"reverse\",", "\"methods\": \"t5,learned,rope\",", "\"train_len\": 5,", "\"steps\": 123,",
        "\"seed\": 42,", "\"d_model\": 24,", "\"heads\": 3,", "\"layers\": 2,", "\"d_ff\": 40,", "\"batch\": 17,",
        "\"lr\": 0.0025,", "\"weight_decay\": 0.02,", "\"warmup\": 7,", "\"eval_count\": 33,", "\"check_every\": 11,",
        "\"base\": 10000.0,", "\"pairing\": \"interleaved\","}) {
    INFO(line);
    CHECK(contains(py, std::string("    ") + line + "\n"));
  }
  CHECK(contains(py, "ropeviz-cli lab --task reverse --methods t5,learned,rope --train-len 5 --steps 123 --seed 42"));
  CHECK(contains(py, "--check-every 11"));
  CHECK(!contains(py, "%DEFAULTS%"));
  CHECK(!contains(py, "%FLAGS%"));
  CHECK(py.rfind("#!/usr/bin/env python3\n", 0) == 0);
  CHECK(contains(py, "import torch\n"));
  CHECK(!contains(py, "numpy"));       // PyTorch and the standard library only
  CHECK(contains(py, "BAR = 0.95 "));  // kLabBar
  CHECK(lab_torch_script(LabOptions()) != py);
  CHECK(contains(lab_torch_script(LabOptions()), "    \"steps\": 2000,\n"));
}

TEST_CASE("lab torch script: the default options write src/core/lab/ropeviz_lab.py byte for byte") {
  const std::string file = read_file(kScriptFile);
  REQUIRE(!file.empty());
  CHECK(std::string(detail::lab_torch_script_file()) == file);  // the build embeds the file as it is
  CHECK(lab_torch_script(LabOptions()) == file);  // the file's defaults are LabOptions()'s, in lab_torch_script's form
  const ScriptPlaces in_file = split_places(file);
  REQUIRE(in_file.places.size() == 3);
  CHECK(in_file.places[0] == in_file.places[1]);
  CHECK(std::count(in_file.places[2].begin(), in_file.places[2].end(), '\n') == 20);  // an option a line
}

TEST_CASE("lab torch script: other options change DEFAULTS' body and the docstring's two commands, nothing else") {
  const ScriptPlaces in_file = split_places(read_file(kScriptFile));
  REQUIRE(in_file.places.size() == 3);
  LabOptions scaled = unusual();  // the two scaling flags too: a longer command
  scaled.rope_scaling = ScalingType::Yarn;
  scaled.rope_factor = 8;
  scaled.table_len = 30;
  LabOptions short_run;  // a shorter command
  short_run.methods = {PositionMethod::Rope};
  short_run.steps = 5;
  for (const LabOptions& o : {unusual(), scaled, short_run}) {
    const ScriptPlaces filled = split_places(lab_torch_script(o));
    CHECK(filled.rest == in_file.rest);
    REQUIRE(filled.places.size() == 3);
    INFO(filled.places[0]);
    CHECK(filled.places[0] != in_file.places[0]);
    CHECK(filled.places[0] == filled.places[1]);  // `lab-export DIR` and `lab` with the same flags
    CHECK(filled.places[2] != in_file.places[2]);
    CHECK(std::count(filled.places[2].begin(), filled.places[2].end(), '\n') == 20);
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
      bool exact = true;  // 9 digits read back to the same float
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
  CHECK(batch_forward(c, w, sequence_batch(tokens, targets), ws, false) == r.methods[0].train_loss[0]);
}
