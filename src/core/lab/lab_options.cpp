// The lab's synthetic tasks (copy, reverse, repeat), its command-line options parser, and what the options make: the
// decoder per method, the learned table's rows, rope's scaled evaluation config.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core/base/names.hpp"
#include "core/encodings/learned.hpp"
#include "core/lab/lab.hpp"

namespace rv {

// [SECTION] Tasks

namespace {

int first_answer(LabTask t, int n) {
  return t == LabTask::Repeat ? kRepeatPeriod : n + 1;
}

// One task instance of size n as the model sees it: the inputs (all but the last token of the full sequence) and the
// targets (the next token from first_answer on, else -1)  # [lab_input_len(t, n)] each
void write_sequence(LabTask t, int n, NormalRng& rng, long long* tokens, long long* targets) {
  const int len = lab_input_len(t, n), drawn = t == LabTask::Repeat ? kRepeatPeriod : n;
  for (int i = 0; i < drawn; ++i) tokens[i] = static_cast<long long>(rng.uniform() * kLabSymbols);
  const auto full = [&](int i) -> long long {  // token i of the full sequence, from the drawn symbols
    if (t == LabTask::Repeat) return tokens[i % kRepeatPeriod];  // p1 p2 p3 p1 p2 p3 ...
    if (i < n) return tokens[i];
    if (i == n) return kLabSep;
    return tokens[t == LabTask::Copy ? i - n - 1 : 2 * n - i];  // x1..xn or xn..x1 after SEP
  };
  for (int i = drawn; i < len; ++i) tokens[i] = full(i);
  for (int i = 1; i <= len; ++i) targets[i - 1] = i >= first_answer(t, n) ? full(i) : -1;
}
}  // namespace

namespace {
constexpr Named<LabPositions> kPositionsNames[] = {{LabPositions::Sequential, "sequential"},
                                                   {LabPositions::Random, "random"}};
}  // namespace

const char* lab_positions_name(LabPositions p) {
  return name_of(kPositionsNames, p);
}

std::optional<LabPositions> parse_lab_positions(std::string_view name) {
  return parse_name(kPositionsNames, name);
}

namespace {
constexpr Named<LabTask> kTaskNames[] = {{LabTask::Copy, "copy"}, {LabTask::Reverse, "reverse"},
                                         {LabTask::Repeat, "repeat"}};
}  // namespace

const char* lab_task_name(LabTask t) {
  return name_of(kTaskNames, t);
}

std::optional<LabTask> parse_lab_task(const std::string& name) {
  return parse_name(kTaskNames, name);
}

int lab_input_len(LabTask t, int n) {
  return t == LabTask::Repeat ? n + kRepeatPeriod - 1 : 2 * n;
}

void append_lab_sequences(SequenceBatch& b, LabTask t, int n, int rows, NormalRng& rng) {
  for (int r = 0; r < rows; ++r) {
    const std::size_t r0 = static_cast<std::size_t>(b.append(lab_input_len(t, n)));
    write_sequence(t, n, rng, &b.tokens[r0], &b.targets[r0]);
  }
}

LabBatch make_lab_batch(LabTask t, int n, int rows, std::uint64_t seed) {
  NormalRng rng(seed);
  const std::size_t len = static_cast<std::size_t>(lab_input_len(t, n));
  LabBatch b;
  for (int r = 0; r < rows; ++r) {
    b.tokens.emplace_back(len);
    b.targets.emplace_back(len);
    write_sequence(t, n, rng, b.tokens.back().data(), b.targets.back().data());
  }
  return b;
}

// [SECTION] Options

namespace {
const char* kFlags =
    "--task, --methods, --train-len, --table-len, --steps, --seed, --seeds, --positions, --position-range, --d-model, "
    "--heads, --layers, --d-ff, --batch, "
    "--lr, --warmup, --eval-count, --check-every, --rope-scaling, --rope-factor";

std::optional<Error> parse_int(const std::string& flag, const std::string& text, long long lo, long long hi,
                               long long& out) {
  char* end = nullptr;
  errno = 0;
  const long long v = text.empty() || text[0] == '+' ? 0 : std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '+' || *end != '\0' || errno == ERANGE)
    return bad_request(flag + " needs an integer, got \"" + text + "\"");
  if (v < lo || v > hi)
    return bad_request(flag + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + text);
  out = v;
  return std::nullopt;
}

std::optional<Error> parse_lr(const std::string& text, double& out) {
  char* end = nullptr;
  const double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    return bad_request("--lr needs a number, got \"" + text + "\"");
  if (v <= 0 || v > 1) return bad_request("--lr must be in (0, 1], got " + text);
  out = v;
  return std::nullopt;
}

std::optional<Error> parse_factor(const std::string& text, double& out) {
  char* end = nullptr;
  const double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    return bad_request("--rope-factor needs a number, got \"" + text + "\"");
  if (!(v > 1) || v > 64) return bad_request("--rope-factor must be in (1, 64], got " + text);
  out = v;
  return std::nullopt;
}

std::optional<Error> parse_methods(const std::string& text, std::vector<PositionMethod>& out) {
  out.clear();
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    const auto m = parse_position_method(name);
    if (!m)
      return bad_request("--methods: unknown method \"" + name +
                         "\" (learned, sinusoidal, rope, alibi, t5, none; comma-separated)");
    for (PositionMethod seen : out)
      if (seen == *m) return bad_request("--methods: \"" + name + "\" is listed twice");
    out.push_back(*m);
    start = comma + 1;
  }
  return std::nullopt;
}

// One integer flag: its name, bounds and field.
struct IntFlag {
  const char* flag;
  long long lo, hi;
  int LabOptions::*field;
};
constexpr IntFlag kIntFlags[] = {
    {"--train-len", 1, kLabTrainLenMax, &LabOptions::train_len}, {"--steps", 1, kLabStepsMax, &LabOptions::steps},
    {"--table-len", 0, kLabTableLenMax, &LabOptions::table_len}, {"--seeds", 1, kLabSeedsMax, &LabOptions::seeds},
    {"--position-range", 0, kLabPositionRangeMax, &LabOptions::position_range},
    {"--d-model", 2, 512, &LabOptions::d_model},    {"--heads", 1, 64, &LabOptions::heads},
    {"--layers", 1, 16, &LabOptions::layers},       {"--d-ff", 1, 4096, &LabOptions::d_ff},
    {"--batch", 1, 1024, &LabOptions::batch},       {"--warmup", 0, 100000, &LabOptions::warmup},
    {"--eval-count", 1, 10000, &LabOptions::eval_count}, {"--check-every", 0, 100000, &LabOptions::check_every}};

std::optional<Error> apply_flag(const std::string& flag, const std::string& value, LabOptions& o) {
  for (const IntFlag& f : kIntFlags) {
    if (flag != f.flag) continue;
    long long v = 0;
    if (auto e = parse_int(flag, value, f.lo, f.hi, v)) return e;
    o.*(f.field) = static_cast<int>(v);
    return std::nullopt;
  }
  if (flag == "--seed") {
    long long v = 0;
    if (auto e = parse_int(flag, value, 0, kLabSeedMax, v)) return e;  // exact as a JSON number
    o.seed = static_cast<std::uint64_t>(v);
    return std::nullopt;
  }
  if (flag == "--lr") return parse_lr(value, o.lr);
  if (flag == "--methods") return parse_methods(value, o.methods);
  if (flag == "--rope-factor") return parse_factor(value, o.rope_factor);
  if (flag == "--rope-scaling") {
    const auto t = parse_lab_scaling(value);
    if (!t)
      return bad_request("--rope-scaling: unknown scaling \"" + value +
                         "\" (none, linear, dynamic, yarn; pi and ntk are linear's and dynamic's old names)");
    o.rope_scaling = *t;
    return std::nullopt;
  }
  if (flag == "--positions") {
    const auto p = parse_lab_positions(value);
    if (!p) return bad_request("--positions: unknown placement \"" + value + "\" (sequential, random)");
    o.positions = *p;
    return std::nullopt;
  }
  if (flag == "--task") {
    const auto t = parse_lab_task(value);
    if (!t) return bad_request("--task: unknown task \"" + value + "\" (copy, reverse, repeat)");
    o.task = *t;
    return std::nullopt;
  }
  return bad_request("unknown flag \"" + flag + "\" (lab flags: " + kFlags + ")");
}

// The model sizes must make a valid decoder for every chosen method (rope needs an even d_head), and a learned table
// must hold every training input.
std::optional<Error> check_model(const LabOptions& o) {
  const int longest_eval = lab_input_len(o.task, 4 * o.train_len);
  if (o.positions == LabPositions::Sequential && o.position_range != 0)
    return bad_request("--position-range is for --positions random (sequential positions are 0..T-1)");
  if (o.positions == LabPositions::Random && o.position_range != 0 && o.position_range < longest_eval)
    return bad_request("--position-range " + std::to_string(o.position_range) +
                       " is shorter than the longest test input (" + std::to_string(longest_eval) + " positions for " +
                       lab_task_name(o.task) + " at --train-len " + std::to_string(o.train_len) +
                       "); use 0 for 4 x that");
  if (o.positions == LabPositions::Random && o.table_len != 0)
    return bad_request("--table-len is for sequential positions: with --positions random the learned table has "
                       "--position-range rows");
  if (o.seed + std::uint64_t(o.seeds - 1) > std::uint64_t(kLabSeedMax))
    return bad_request("--seed " + std::to_string(o.seed) + " with --seeds " + std::to_string(o.seeds) +
                       " passes the largest seed, " + std::to_string(kLabSeedMax));
  if (o.table_len != 0 && o.table_len < lab_trained_positions(o))
    return bad_request("--table-len " + std::to_string(o.table_len) + " is shorter than the longest training input (" +
                       std::to_string(lab_trained_positions(o)) + " positions for " + lab_task_name(o.task) +
                       " at --train-len " + std::to_string(o.train_len) + "); use 0 for exactly that");
  for (PositionMethod m : o.methods)
    if (auto e = check_decoder_config(lab_decoder_config(o, m)))
      return bad_request("--d-model/--heads: " + e->message);
  const bool rope = std::find(o.methods.begin(), o.methods.end(), PositionMethod::Rope) != o.methods.end();
  if (o.rope_scaling != ScalingType::None && rope)  // without rope the scaling has nothing to evaluate
    if (auto c = lab_scaled_config(o); !c) return bad_request("--rope-scaling: " + c.error().message);
  return std::nullopt;
}
}  // namespace

Expected<LabOptions> parse_lab_options(const std::vector<std::string>& args) {
  LabOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    const std::size_t eq = flag.find('=');
    if (flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    } else if (flag.rfind("--", 0) != 0) {
      return bad_request("unexpected argument \"" + flag + "\" (lab flags: " + kFlags + ")");
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return bad_request(flag + " needs a value");
    }
    if (auto e = apply_flag(flag, value, o)) return *e;
  }
  if (auto e = check_model(o)) return *e;
  return o;
}

int lab_trained_positions(const LabOptions& o) {
  return o.positions == LabPositions::Random ? lab_position_range(o) : lab_input_len(o.task, o.train_len);
}

int lab_position_range(const LabOptions& o) {
  if (o.positions != LabPositions::Random) return 0;
  return o.position_range > 0 ? o.position_range : 4 * lab_input_len(o.task, 4 * o.train_len);
}

int lab_table_len(const LabOptions& o) {
  return o.table_len > 0 ? o.table_len : lab_trained_positions(o);
}

DecoderConfig lab_decoder_config(const LabOptions& o, PositionMethod m) {
  DecoderConfig c;
  c.vocab = kLabVocab;
  c.d_model = o.d_model;
  c.heads = o.heads;
  c.layers = o.layers;
  c.d_ff = o.d_ff;
  c.position = m;
  c.max_position = lab_table_len(o);
  return c;
}

namespace {
// The scalings the lab offers under Hugging Face's rope_type names (scaling.cpp's), then the names the lab used
// before, still read: pi (position interpolation) and ntk (dynamic NTK).
constexpr Named<ScalingType> kLabScalingNames[] = {{ScalingType::None, "none"},       {ScalingType::Linear, "linear"},
                                                    {ScalingType::Dynamic, "dynamic"}, {ScalingType::Yarn, "yarn"},
                                                    {ScalingType::Linear, "pi"},       {ScalingType::Dynamic, "ntk"}};
}  // namespace

const char* lab_scaling_name(ScalingType t) {
  return name_of(kLabScalingNames, t);
}

std::optional<ScalingType> parse_lab_scaling(std::string_view name) {
  return parse_name(kLabScalingNames, name);
}

RopeScaling lab_rope_scaling(const LabOptions& o) {
  RopeScaling s;
  s.type = o.rope_scaling;
  s.factor = o.rope_factor;
  const double trained = lab_input_len(o.task, o.train_len), longest = lab_input_len(o.task, 4 * o.train_len);
  if (s.type == ScalingType::Dynamic) {
    s.max_position_embeddings = trained;
    s.seq_len = longest;
  }
  if (s.type == ScalingType::Yarn) s.original_max_position_embeddings = trained;  // beta_fast 32, beta_slow 1
  return s;
}

Expected<DecoderConfig> lab_scaled_config(const LabOptions& o) {
  DecoderConfig c = lab_decoder_config(o, PositionMethod::Rope);
  const Expected<ScaledFreq> f = rope_scaled_inv_freq(c.d_head(), c.base, lab_rope_scaling(o));
  if (!f) return f.error();
  c.inv_freq.assign(f->inv_freq.data(), f->inv_freq.data() + f->inv_freq.size());
  c.attention_factor = f->attention_factor;
  if (auto e = check_decoder_config(c)) return *e;
  return c;
}

}  // namespace rv
