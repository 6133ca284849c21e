// The lab's PyTorch export: the script with a run's options baked in, and its data file (init weights, first batches).
#include "core/lab/lab_torch.hpp"
#include "core/base/format.hpp"
#include "core/base/json_writer.hpp"

#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace rv {

namespace {
std::string quoted(const std::string& s) {  // options' strings are names and flags: no escapes needed
  return "\"" + s + "\"";
}

std::string method_list(const LabOptions& o) {
  std::string out;
  for (PositionMethod m : o.methods) out += (out.empty() ? "" : ",") + std::string(position_method_name(m));
  return out;
}

// A double as a Python/JSON number that reads back as a float (10000 -> 10000.0).
std::string float_text(double x) {
  std::string s = format_number(x);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

// The run's options as "key": value pairs on one line (the data file's "options").
std::string option_items(const LabOptions& o) {
  const DecoderConfig rope = lab_decoder_config(o, PositionMethod::Rope);  // base and pairing as the lab uses them
  const std::pair<const char*, std::string> items[] = {
      {"task", quoted(lab_task_name(o.task))},
      {"methods", quoted(method_list(o))},
      {"train_len", std::to_string(o.train_len)},
      {"table_len", std::to_string(o.table_len)},
      {"steps", std::to_string(o.steps)},
      {"seed", std::to_string(o.seed)},
      {"d_model", std::to_string(o.d_model)},
      {"heads", std::to_string(o.heads)},
      {"layers", std::to_string(o.layers)},
      {"d_ff", std::to_string(o.d_ff)},
      {"batch", std::to_string(o.batch)},
      {"lr", float_text(o.lr)},
      {"weight_decay", float_text(o.weight_decay)},
      {"warmup", std::to_string(o.warmup)},
      {"eval_count", std::to_string(o.eval_count)},
      {"check_every", std::to_string(o.check_every)},
      {"base", float_text(rope.base)},
      {"pairing", quoted(pairing_name(rope.pairing))},
      {"rope_scaling", quoted(lab_scaling_name(o.rope_scaling))},
      {"rope_factor", float_text(o.rope_factor)}};
  std::string out;
  for (const auto& [key, value] : items) {
    out += (out.empty() ? "" : ", ") + quoted(key) + ": " + value;
  }
  return out;
}

// The marked line of ropeviz_lab.py (lab_torch.hpp): DEFAULTS, the run's options as a Python dict on one line.
constexpr const char* kDefaultsStart = "DEFAULTS = ";
constexpr const char* kDefaultsMark = "  # ropeviz-cli lab-export writes this line";

// The run's options as a Python dict literal, in JsonWriter's spaced layout: JSON's strings and integers are
// Python's (the options have no true, false or null), and the real-valued options are written as floats.
std::string python_defaults(const LabOptions& o) {
  const DecoderConfig rope = lab_decoder_config(o, PositionMethod::Rope);  // base and pairing as the lab uses them
  JsonWriter w(true);
  const auto real = [&w](const char* name, double x) { w.key(name).raw(float_text(x)); };
  w.begin_object().field("task", lab_task_name(o.task)).field("methods", method_list(o));
  w.field("train_len", o.train_len).field("table_len", o.table_len).field("steps", o.steps);
  w.field("seed", static_cast<long long>(o.seed));
  w.field("d_model", o.d_model).field("heads", o.heads).field("layers", o.layers).field("d_ff", o.d_ff);
  w.field("batch", o.batch);
  real("lr", o.lr);
  real("weight_decay", o.weight_decay);
  w.field("warmup", o.warmup).field("eval_count", o.eval_count).field("check_every", o.check_every);
  real("base", rope.base);
  w.field("pairing", pairing_name(rope.pairing)).field("rope_scaling", lab_scaling_name(o.rope_scaling));
  real("rope_factor", o.rope_factor);
  return w.end_object().str();
}

template <class T>
void append_list(std::string& out, const T* xs, long long n) {
  char buf[32];
  out += '[';
  for (long long i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, float>)
      std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(xs[i]));  // 9 digits: any float reads back exactly
    else
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(xs[i]));
    if (i) out += ", ";
    out += buf;
  }
  out += ']';
}

// One batch's sequences as ragged rows of tokens and targets.
void append_batch(std::string& out, const SequenceBatch& b, int step) {
  out += "{\"step\": " + std::to_string(step);
  for (const auto* field : {&b.tokens, &b.targets}) {
    out += field == &b.tokens ? ", \"tokens\": [" : ", \"targets\": [";
    for (int s = 0; s < b.sequences(); ++s) {
      if (s) out += ", ";
      append_list(out, field->data() + b.start[static_cast<std::size_t>(s)], b.length[static_cast<std::size_t>(s)]);
    }
    out += ']';
  }
  out += '}';
}

std::string config_json(const DecoderConfig& c) {
  return "{\"vocab\": " + std::to_string(c.vocab) + ", \"d_model\": " + std::to_string(c.d_model) +
         ", \"heads\": " + std::to_string(c.heads) + ", \"layers\": " + std::to_string(c.layers) +
         ", \"d_ff\": " + std::to_string(c.d_ff) + ", \"position\": " + quoted(position_method_name(c.position)) +
         ", \"max_position\": " + std::to_string(c.max_position) + ", \"base\": " + float_text(c.base) +
         ", \"pairing\": " + quoted(pairing_name(c.pairing)) + "}";
}
}  // namespace

// ropeviz_lab.py with the run on its marked line (lab_torch.hpp): the line that starts with kDefaultsStart and ends
// with kDefaultsMark is written again whole (a file without it is left alone: the byte-for-byte test fails).
std::string lab_torch_script(const LabOptions& o) {
  std::string text(detail::lab_torch_script_file());
  const std::string start = std::string("\n") + kDefaultsStart, mark = kDefaultsMark;
  const std::size_t at = text.find(start);
  if (at == std::string::npos) return text;
  const std::size_t begin = at + 1, end = text.find('\n', begin);
  if (end == std::string::npos || end - begin < mark.size() || text.compare(end - mark.size(), mark.size(), mark) != 0)
    return text;
  text.replace(begin, end - begin, kDefaultsStart + python_defaults(o) + mark);
  return text;
}

std::string lab_torch_data(const LabOptions& o, int batches) {
  std::string out = "{\"format\": \"ropeviz-lab-data\", \"version\": 1, \"options\": {" + option_items(o) +
                    ", \"vocab\": " + std::to_string(kLabVocab) + ", \"sep\": " + std::to_string(kLabSep) +
                    "},\n\"batches\": [";
  SequenceBatch b;
  for (int s = 0; s < batches; ++s) {
    lab_train_batch(o, s, b);
    out += s ? ",\n  " : "\n  ";
    append_batch(out, b, s);
  }
  out += "],\n\"methods\": {";
  for (std::size_t i = 0; i < o.methods.size(); ++i) {
    const DecoderConfig c = lab_decoder_config(o, o.methods[i]);
    const DecoderWeightsT<float> w = lab_init_weights(o, o.methods[i]);
    out += std::string(i ? ",\n" : "\n") + quoted(position_method_name(c.position)) +
           ": {\"config\": " + config_json(c) + ", \"weights\": {";
    bool first = true;
    for (const WeightRef<const float>& r : weight_refs(c, w)) {
      out += std::string(first ? "\n  " : ",\n  ") + quoted(r.name) + ": ";
      append_list(out, r.data, r.size);
      first = false;
    }
    out += "}}";
  }
  return out + "}}\n";
}

}  // namespace rv
