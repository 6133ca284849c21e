// The lab's PyTorch export: the script with a run's options baked in, and its data file (init weights, first batches).
#include "core/lab/lab_torch.hpp"
#include "core/base/format.hpp"
#include "core/base/json_writer.hpp"

#include <string>

namespace rv {

namespace {
std::string method_list(const LabOptions& o) {
  std::string out;
  for (PositionMethod m : o.methods) out += (out.empty() ? "" : ",") + std::string(position_method_name(m));
  return out;
}

// A double as a Python float literal (10000 -> 10000.0).
std::string python_float(double x) {
  std::string s = format_number(x);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

// The two renderings of the options: the script's DEFAULTS is a Python dict, the data file's "options" JSON. They
// differ only in the real-valued options, which Python must read as floats (argparse keeps a default's type); JSON's
// strings and integers are Python's, and the options have no true, false or null.
enum class Literal { Python, Json };

// The run's options as members of the object w has open, in the order of the script's DEFAULTS.
void option_fields(JsonWriter& w, const LabOptions& o, Literal as) {
  const DecoderConfig rope = lab_decoder_config(o, PositionMethod::Rope);  // base and pairing as the lab uses them
  const auto real = [&w, as](const char* name, double x) {
    if (as == Literal::Python)
      w.key(name).raw(python_float(x));
    else
      w.field(name, x);
  };
  w.field("task", lab_task_name(o.task)).field("methods", method_list(o));
  w.field("train_len", o.train_len).field("table_len", o.table_len).field("steps", o.steps);
  w.field("seed", static_cast<long long>(o.seed)).field("seeds", o.seeds);
  w.field("positions", lab_positions_name(o.positions)).field("position_range", o.position_range);
  w.field("d_model", o.d_model).field("heads", o.heads).field("layers", o.layers).field("d_ff", o.d_ff);
  w.field("batch", o.batch);
  real("lr", o.lr);
  real("weight_decay", o.weight_decay);
  w.field("warmup", o.warmup).field("eval_count", o.eval_count).field("check_every", o.check_every);
  real("base", rope.base);
  w.field("pairing", pairing_name(rope.pairing)).field("rope_scaling", lab_scaling_name(o.rope_scaling));
  real("rope_factor", o.rope_factor);
}

// The marked line of ropeviz_lab.py (lab_torch.hpp): DEFAULTS, the run's options as a Python dict on one line.
constexpr const char* kDefaultsStart = "DEFAULTS = ";
constexpr const char* kDefaultsMark = "  # ropeviz-cli lab-export writes this line";

std::string python_defaults(const LabOptions& o) {
  JsonWriter w(true);
  w.begin_object();
  option_fields(w, o, Literal::Python);
  return w.end_object().str();
}

// n values from `data`, as a range for JsonWriter::list.
template <class T>
struct Span {
  const T* data;
  long long n;
  const T* begin() const { return data; }
  const T* end() const { return data + n; }
};

// decoder_grad's config.
void write_config(JsonWriter& w, const DecoderConfig& c) {
  w.begin_object().field("vocab", c.vocab).field("d_model", c.d_model).field("heads", c.heads);
  w.field("layers", c.layers).field("d_ff", c.d_ff).field("position", position_method_name(c.position));
  w.field("max_position", c.max_position).field("base", c.base).field("pairing", pairing_name(c.pairing));
  w.end_object();
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
  JsonWriter w(true);
  w.begin_object().field("format", "ropeviz-lab-data").field("version", 1);
  w.key("options").begin_object();
  option_fields(w, o, Literal::Json);
  w.field("vocab", kLabVocab).field("sep", kLabSep).end_object();
  w.key("batches").begin_array();
  SequenceBatch b;
  for (int step = 0; step < batches; ++step) {
    lab_train_batch(o, step, b);
    w.begin_object().field("step", step);
    for (const auto& [name, rows] : {std::pair{"tokens", &b.tokens}, std::pair{"targets", &b.targets}}) {
      w.key(name).begin_array();  // one sequence a row, ragged
      for (int s = 0; s < b.sequences(); ++s)
        w.list(Span<long long>{rows->data() + b.start[static_cast<std::size_t>(s)],
                               b.length[static_cast<std::size_t>(s)]});
      w.end_array();
    }
    w.end_object();
  }
  w.end_array().key("methods").begin_object();
  for (PositionMethod m : o.methods) {
    const DecoderConfig c = lab_decoder_config(o, m);
    const DecoderWeightsT<float> init = lab_init_weights(o, m);
    w.key(position_method_name(m)).begin_object().key("config");
    write_config(w, c);
    w.key("weights").begin_object();
    for (const WeightRef<const float>& r : weight_refs(c, init))
      w.key(r.name.c_str()).list(Span<float>{r.data, r.size});
    w.end_object().end_object();
  }
  return w.end_object().end_object().str() + "\n";
}

}  // namespace rv
