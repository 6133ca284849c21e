// Opening checkpoints into the app and the learned table's frame (app/state/weights.hpp).
#include "app/state/weights.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "app/state/loaded_tokenizer.hpp"
#include "app/state/params.hpp"
#include "core/base/format.hpp"
#include "core/base/json_value.hpp"
#include "core/infer/forward.hpp"
#include "core/lab/lab_checkpoint.hpp"
#include "core/models/json_config.hpp"
#include "core/weights/attention_layout.hpp"
#include "core/weights/family.hpp"

namespace rv {
namespace {

bool has_table(const Checkpoint& c) {
  for (const std::string& name : learned_table_names())
    if (std::any_of(c.tensors().begin(), c.tensors().end(), [&](const TensorInfo& t) { return t.name == name; }))
      return true;
  return false;
}

// The frame a table of `dim` columns gives: the config's heads when they divide it into even heads, else heads of 64,
// else one head of the whole width.
bool table_frame(long long rows, long long dim, std::optional<long long> config_heads, Params& p) {
  if (rows < 1 || rows > Limits::kMaxPositionMax || rows * dim > Limits::kTableEntriesMax) return false;
  const auto fits = [&](long long heads) {
    if (heads < 1 || heads > Limits::kHeadsMax || dim % heads) return false;
    const long long d_head = dim / heads;
    return d_head >= 2 && d_head <= Limits::kDHeadMax && d_head % 2 == 0;
  };
  long long heads = 0;
  for (long long h : {config_heads.value_or(0), dim / 64, 1LL})
    if (!heads && fits(h)) heads = h;
  if (!heads) return false;
  p.max_position = int(rows);
  p.heads = int(heads);
  p.d_head = int(dim / heads);
  return true;
}

std::string shape_text(long long rows, long long dim) {
  return "[" + std::to_string(rows) + ", " + std::to_string(dim) + "]";
}

// What qk=layer0 needs of the checkpoint: its embedding's rows and the config's heads (from the header alone), and
// layer 0's q and k for the pair the load asks for. An Error only for missing bytes (the page supplies them and runs
// the load again); anything else is why layer 0 cannot be drawn.
std::optional<Error> layer0_pair(const WeightsFiles& files, Checkpoint& c, LoadedWeights& w) {
  if (!w.config) {
    w.no_layer0 = "layer 0's q and k need the checkpoint's config.json beside it";
    return std::nullopt;
  }
  const Expected<AttentionModel> model = attention_model(*w.config, "qk=layer0");
  if (!model) {
    w.no_layer0 = model.error().message;
    return std::nullopt;
  }
  const TensorInfo* embed = c.find(model->layout.embed);
  if (!embed || embed->shape.size() != 2) {
    w.no_layer0 = "the checkpoint holds no token embedding \"" + model->layout.embed + "\"";
    return std::nullopt;
  }
  w.vocab = embed->shape[0];
  w.qk_heads = model->heads;
  const int head = int(std::min<long long>(files.qk_of[0], model->heads - 1));
  const long long token = std::min(files.qk_of[1], w.vocab - 1), key = std::min(files.qk_of[2], w.vocab - 1);
  Expected<RealQK> qk = real_qk(c, *w.config, head, token, key);
  if (!qk && qk.error().type == kNeedBytes) return qk.error();
  if (!qk) {
    w.no_layer0 = qk.error().message;
    return std::nullopt;
  }
  w.first_qk = std::move(qk.value());
  w.first_qk_of[0] = head;
  w.first_qk_of[1] = token;
  w.first_qk_of[2] = key;
  return std::nullopt;
}

// ... then tokenizer.json, once every byte is in (the page runs the load again per range it reads): a bad one refuses
// the load, naming it and the component.
std::optional<Error> layer0_of(const WeightsFiles& files, Checkpoint& c, LoadedWeights& w) {
  if (auto e = layer0_pair(files, c, w)) return e;
  if (!files.tokenizer_text) return std::nullopt;
  Expected<std::shared_ptr<const LoadedTokenizer>> t =
      parse_loaded_tokenizer(*files.tokenizer_text, files.tokenizer_bytes, "tokenizer.json");
  if (!t) return t.error();
  w.tokenizer = std::move(*t);
  return std::nullopt;
}

}  // namespace

Expected<RealQK> layer0_qk(const Params& p) {
  const LoadedWeights* w = p.weights.get();
  if (!w) return bad_request("no checkpoint is loaded (load weights, with their config.json)");
  if (!w->no_layer0.empty()) return bad_request(w->label + ": " + w->no_layer0);
  if (w->first_qk && w->first_qk_of[0] == p.qk_head && w->first_qk_of[1] == p.q_token && w->first_qk_of[2] == p.k_token)
    return *w->first_qk;
  if (!w->checkpoint || !w->config) return bad_request(w->label + ": the checkpoint is not open");
  return real_qk(*w->checkpoint, *w->config, p.qk_head, p.q_token, p.k_token);
}

const WeightsTable* loaded_table(const Params& p) {
  if (!p.weights || !p.weights->table) return nullptr;
  const WeightsTable& t = *p.weights->table;
  return t.P.rows() == p.max_position && t.P.cols() == p.d_model() ? &t : nullptr;
}

std::string table_name(const Params& p) {
  const WeightsTable* t = loaded_table(p);
  return t ? t->tensor + " of " + p.weights->label : "the app's table";
}

std::uint64_t next_weights_serial() {
  static std::uint64_t serial = 0;
  return ++serial;
}

bool is_weights_file(const std::string& name) {
  const auto ends = [&](const char* tail) {
    const std::size_t n = std::char_traits<char>::length(tail);
    return name.size() >= n && name.compare(name.size() - n, n, tail) == 0;
  };
  return ends(".safetensors") || ends(".safetensors.index.json");
}

bool is_side_file(const std::string& name) {
  const std::string base = file_name(name);
  for (const char* side :
       {"tokenizer_config.json", "generation_config.json", "special_tokens_map.json", "preprocessor_config.json"})
    if (base == side) return true;
  return false;
}

bool load_weights_path(Params& p, const std::string& path, std::vector<std::string>& notes, NoteDetailsMap* details) {
  Expected<std::shared_ptr<const LoadedWeights>> w = open_weights_path(path, next_weights_serial());
  if (!w) {
    notes.push_back(file_name(path) + ": " + w.error().message + "; kept the current " +
                    (p.weights ? "weights" : "table"));
    return false;
  }
  return install_weights(p, w.value(), notes, details);
}

bool load_lab_table(Params& p, const LabSession& lab, std::vector<std::string>& notes, NoteDetailsMap* details) {
  const LabTrained* learned = nullptr;
  if (lab.run)
    for (const LabTrained& t : lab.run->trained())
      if (t.method == PositionMethod::Learned) learned = &t;
  if (!learned) {
    notes.push_back("the lab has no trained learned table yet: run it with the learned method");
    return false;
  }
  const Expected<std::vector<std::uint8_t>> bytes = lab_safetensors(*learned);
  if (!bytes) {
    notes.push_back("the lab's learned decoder: " + bytes.error().message);
    return false;
  }
  WeightsFiles files;
  files.label = "the lab's learned decoder";
  files.file = "model.safetensors";
  const std::vector<std::uint8_t> data = *bytes;
  const SourceOpener open = [data](const std::string&) -> Expected<std::unique_ptr<ByteSource>> {
    return std::unique_ptr<ByteSource>(new MemorySource(data));
  };
  Expected<std::shared_ptr<const LoadedWeights>> w = open_weights(files, open, next_weights_serial());
  if (!w) {
    notes.push_back(files.label + ": " + w.error().message);
    return false;
  }
  return install_weights(p, w.value(), notes, details);
}

std::uint64_t weights_serial(const Params& p) {
  return p.weights ? p.weights->serial : 0;
}

Expected<std::shared_ptr<const LoadedWeights>> open_weights(const WeightsFiles& files, const SourceOpener& open,
                                                            std::uint64_t serial) {
  auto w = std::make_shared<LoadedWeights>();
  w->label = files.label;
  w->serial = serial;
  if (files.config_text) {
    if (files.config_bytes > kMaxConfigFileBytes)
      return bad_request(files.config_name + ": " + format_count((long long)files.config_bytes) +
                         " bytes is over the " + format_count((long long)kMaxConfigFileBytes) +
                         "-byte limit for a config.json");
    const Expected<HfConfig> c = parse_hf_config(*files.config_text);
    if (!c) return bad_request(files.config_name + ": " + c.error().message);
    w->model_type = c->model_type.value_or("");
    if (w->model_type != kLabModelType) {  // the lab's config.json describes its decoder, not a Hugging Face model
      w->config = *c;
      w->config_name = files.config_name;
    }
  }
  Expected<Checkpoint> opened = files.index_text.empty() ? Checkpoint::open_file(files.file, open)
                                                         : Checkpoint::open_index(files.index_text, open);
  if (!opened) return opened.error();
  Checkpoint& c = opened.value();
  w->tensors = c.tensors();
  w->header_bytes = c.header_bytes();
  w->file_bytes = c.file_bytes() >= kUnknownFileSize ? 0 : c.file_bytes();  // 0: a host that gave no size
  if (has_table(c)) {
    Expected<FoundTable> found = find_learned_table(c, "", learned_table_offset(w->model_type));
    if (!found) return found.error();
    WeightsTable t;
    t.tensor = found->tensor->name;
    t.dtype = found->tensor->dtype;
    t.offset = found->offset;
    t.P = std::move(found.value().positions);
    const auto started = std::chrono::steady_clock::now();
    t.analysis = analyze_learned_table(t.P);
    t.analysis_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    w->table = std::move(t);
  } else {
    w->no_table = find_learned_table(c, "", 0).error().message;  // names what was looked for and what it holds
  }
  if (auto e = layer0_of(files, c, *w)) return *e;
  if (w->vocab == 0 && w->config)  // a learned-table model: no layer 0 to read, its vocabulary all the same
    if (const Expected<ForwardShape> shape = forward_shape(c, *w->config)) w->vocab = shape->vocab;
  w->bytes_read = c.bytes_read();
  w->checkpoint = std::make_shared<Checkpoint>(std::move(c));  // kept: layer 0's reads and the rope_usage walk
  return std::shared_ptr<const LoadedWeights>(std::move(w));
}

bool install_weights(Params& p, std::shared_ptr<const LoadedWeights> w, std::vector<std::string>& notes,
                     NoteDetailsMap* details) {
  Params next = p;
  next.weights.reset();
  if (w->config && !use_config(next, *w->config, w->label + " (" + w->config_name + ")", notes)) return false;
  if (w->table) {
    const WeightsTable& t = *w->table;
    const long long rows = t.P.rows(), dim = t.P.cols();
    std::optional<long long> heads;
    if (next.model == kLoadedModel && next.loaded) heads = next.loaded->config.num_attention_heads;
    if (!table_frame(rows, dim, heads, next)) {
      notes.push_back(w->label + ": " + t.tensor + " " + shape_text(rows, dim) + " does not fit this app (rows 1.." +
                      format_count(Limits::kMaxPositionMax) + ", at most " + format_count(Limits::kTableEntriesMax) +
                      " entries, a width of even heads of 2.." + std::to_string(Limits::kDHeadMax) +
                      "); kept the current table");
      return false;
    }
  }
  if (w->vocab > 0 && w->vocab <= Limits::kVocabMax) next.vocab = int(w->vocab);  // V: its embedding's rows
  next.weights = std::move(w);
  p = next;
  const LoadedWeights& l = *p.weights;
  const ModelFamily* family = model_family(l.model_type);
  const bool rope_model = family && family->positions[0] == '\0';
  // One line: what the checkpoint holds is a list behind a disclosure under it (no longer ~20 names in the note).
  notes.push_back(
      "loaded " + l.label + ": " + std::to_string(l.tensors.size()) + " tensors, read " +
      format_count((long long)l.bytes_read) +
      (l.file_bytes ? " of " + format_count((long long)l.file_bytes) + " bytes" : " bytes") +
      (l.table ? "; the learned table is " + l.table->tensor + " " + shape_text(l.table->P.rows(), l.table->P.cols())
       : rope_model ? "; no learned position table (" + l.model_type + " uses RoPE)"
                    : "; no learned position table") +
      (l.tokenizer ? "; " + l.tokenizer->name + " beside it" : ""));
  if (!l.table && details) {
    NoteDetails& d = (*details)[notes.back()];
    d = NoteDetails{"tensors (" + format_count((long long)l.tensors.size()) + ")",
                    "looked for " + learned_table_names_words() + "; the checkpoint holds:",
                    {}};
    for (const TensorInfo& t : l.tensors) d.lines.push_back(t.name);
  }
  // a vocabulary that does not fit is said before any forward pass is asked for
  if (l.tokenizer && !tokenizer_fit(*l.tokenizer, l.vocab).empty())
    notes.push_back(l.label + ": " + tokenizer_fit(*l.tokenizer, l.vocab));
  return true;
}

void unload_weights(Params& p, std::vector<std::string>& notes) {
  if (!p.weights) return;
  notes.push_back("unloaded " + p.weights->label + ": the learned table is the seeded random one again");
  p.weights.reset();
}

std::string file_name(const std::string& path) {
  return path.substr(path.find_last_of("/\\") + 1);
}

std::optional<std::string> read_file_head(const std::string& path, std::size_t cap, std::uint64_t& size) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  size = std::uint64_t(std::max<std::streamoff>(in.tellg(), 0));
  in.seekg(0);
  std::string text(std::min<std::uint64_t>(size, cap), '\0');
  in.read(text.data(), std::streamsize(text.size()));
  return text;
}

Expected<std::shared_ptr<const LoadedWeights>> open_weights_path(const std::string& path, std::uint64_t serial) {
  const std::size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
  WeightsFiles files;
  files.label = slash == std::string::npos ? path : path.substr(slash + 1);
  const bool index = files.label.size() >= 5 && files.label.compare(files.label.size() - 5, 5, ".json") == 0;
  if (index) {
    std::uint64_t size = 0;
    std::optional<std::string> text = read_file_head(path, kMaxJsonBytes + 1, size);
    if (!text) return Error{"IOError", "cannot open " + path};
    if (size > kMaxJsonBytes) return bad_request(path + " is too large for an index");
    files.index_text = std::move(*text);
  } else {
    files.file = files.label;
  }
  const std::string config = (dir.empty() ? "" : dir + "/") + "config.json";
  files.config_text = read_file_head(config, kMaxConfigFileBytes, files.config_bytes);
  files.tokenizer_text =
      read_file_head((dir.empty() ? "" : dir + "/") + "tokenizer.json", kMaxTokenizerBytes + 1, files.tokenizer_bytes);
  return open_weights(files, disk_opener(dir), serial);
}

}  // namespace rv
