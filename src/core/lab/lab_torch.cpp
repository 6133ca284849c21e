// The lab's PyTorch export: the script with a run's options baked in, and its data file (init weights, first batches).
#include "core/lab/lab_torch.hpp"
#include "core/base/format.hpp"

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

// The run's options as "key": value pairs, one per line with `indent`, or on one line when indent is empty.
std::string option_items(const LabOptions& o, const std::string& indent) {
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
    if (!out.empty()) out += indent.empty() ? ", " : "\n";
    out += indent + quoted(key) + ": " + value + (indent.empty() ? "" : ",");
  }
  return out;
}

// The lab flags that repeat this run (lab_option_flags), as shell text continued over lines of about 90 characters.
std::string flags_text(const LabOptions& o) {
  const std::vector<std::string> flags = lab_option_flags(o);
  std::string out;
  std::size_t line = 0;
  for (std::size_t i = 0; i + 1 < flags.size(); i += 2) {  // flag and value pairs
    const std::string pair = flags[i] + " " + flags[i + 1];
    if (line > 0 && line + pair.size() > 90) {
      out += " \\\n       ";
      line = 0;
    }
    out += " " + pair;
    line += pair.size() + 1;
  }
  return out;
}

// Replaces the text between the first `after` and the next `until` with `with` (a file without them is left alone:
// the byte-for-byte test fails).
void fill(std::string& text, const std::string& after, const std::string& until, const std::string& with) {
  const std::size_t at = text.find(after);
  if (at == std::string::npos) return;
  const std::size_t begin = at + after.size(), end = text.find(until, begin);
  if (end != std::string::npos) text.replace(begin, end - begin, with);
}

// Replaces the flags of the line `command` and a space begin, up to the end of the command: the first line break not
// preceded by a backslash.
void fill_command(std::string& text, const std::string& command, const std::string& flags) {
  const std::size_t at = text.find("\n" + command + " ");
  if (at == std::string::npos) return;
  const std::size_t begin = at + 1 + command.size();
  std::size_t end = text.find('\n', begin);
  while (end != std::string::npos && text[end - 1] == '\\') end = text.find('\n', end + 1);
  if (end != std::string::npos) text.replace(begin, end - begin, flags);
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

// ropeviz_lab.py with the run in its three places (lab_torch.hpp).
std::string lab_torch_script(const LabOptions& o) {
  std::string text(detail::lab_torch_script_file());
  fill(text, "\nDEFAULTS = {\n", "\n}\n", option_items(o, "    "));
  const std::string flags = flags_text(o);
  fill_command(text, "    ropeviz-cli lab-export DIR", flags);
  fill_command(text, "    ropeviz-cli lab", flags);
  return text;
}

std::string lab_torch_data(const LabOptions& o, int batches) {
  std::string out = "{\"format\": \"ropeviz-lab-data\", \"version\": 1, \"options\": {" + option_items(o, "") +
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
