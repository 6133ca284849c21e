// The lab's run: float32 training of each position method (AdamW, warm-up + cosine), evaluation per length, JSON.
#include "core/lab/lab.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <type_traits>

#include "core/base/constants.hpp"
#include "core/base/fixed_sum.hpp"
#include "core/base/format.hpp"
#include "core/base/json_writer.hpp"
#include "core/encodings/learned.hpp"
#include "core/lab/lab_runs.hpp"

namespace rv {

namespace {
constexpr double kInitStddev = 0.02;   // init_decoder_weights' default
constexpr double kEmbStddev = 1.0;     // tok_emb and pos_emb as PyTorch's nn.Embedding: on the scale of PE(t)

// True when every answer of sequence s is its logits' argmax (after batch_forward); counts right and all answers.
bool sequence_exact(const DecoderWorkspace<float>& ws, const SequenceBatch& b, int s, long long& right,
                    long long& total) {
  bool all = true;
  const std::size_t k = static_cast<std::size_t>(s);
  for (int t = ws.out_from[k]; t < b.length[k]; ++t) {
    const long long y = b.targets[static_cast<std::size_t>(b.start[k] + t)];
    if (y < 0) continue;
    Eigen::Index best = 0;
    ws.logits.row(ws.out_start[k] + t - ws.out_from[k]).maxCoeff(&best);
    const bool ok = best == y;
    right += ok;
    ++total;
    all = all && ok;
  }
  return all;
}

// Per row of the learned table: how far training moved it from its init, relative to the init's norm.
std::vector<double> table_row_change(const LabOptions& o, const DecoderWeightsT<float>& w) {
  const DecoderWeightsT<float> init = lab_init_weights(o, PositionMethod::Learned);
  std::vector<double> change(static_cast<std::size_t>(w.pos_emb.rows()));
  for (Eigen::Index r = 0; r < w.pos_emb.rows(); ++r)
    change[static_cast<std::size_t>(r)] = double(fixed_norm(w.pos_emb.row(r) - init.pos_emb.row(r))) /
                                          std::max(1e-30, double(fixed_norm(init.pos_emb.row(r))));
  return change;
}

// Grows the workspace and batch to the largest training step (batch rows of the longest size), so that no training
// step allocates: one forward and backward pass on such a batch.
void reserve_training(const LabOptions& o, const DecoderConfig& c, const DecoderWeightsT<float>& w,
                      SequenceBatch& batch, DecoderWorkspace<float>& ws) {
  batch.clear();
  const int longest = lab_input_len(o.task, o.train_len);
  for (int r = 0; r < o.batch; ++r) {
    const std::size_t r0 = static_cast<std::size_t>(batch.append(longest));
    batch.targets[r0] = 0;
  }
  if (const int range = lab_position_range(o); range > 0) {  // random: the tables reach the last position R - 1
    std::vector<long long> last(static_cast<std::size_t>(longest));
    for (int t = 0; t < longest; ++t) last[std::size_t(t)] = range - longest + t;
    for (int s = 0; s < batch.sequences(); ++s) batch.set_positions(s, last.data());
  }
  batch_forward(c, w, batch, ws, true);
  batch_backward(c, w, batch, ws);
  batch.clear();
}
}  // namespace

namespace {
// Every sequence of b at lab_sample_positions(T, range), drawn in order from one stream.
void place_sequences(SequenceBatch& b, int range, std::uint64_t seed) {
  NormalRng rng(seed);
  long long p[4 * kLabTrainLenMax + kRepeatPeriod];  // the longest input, lab_input_len(task, 4 * kLabTrainLenMax)
  for (int s = 0; s < b.sequences(); ++s) {
    lab_sample_positions(rng, b.length[std::size_t(s)], range, p);
    b.set_positions(s, p);
  }
}
}  // namespace

void lab_sample_positions(NormalRng& rng, int T, int R, long long* out) {
  int taken = 0;
  for (long long j = R - T; j < R; ++j) {  // Floyd: T draws give a uniform T-subset of [0, R)
    const long long t = static_cast<long long>(rng.uniform() * double(j + 1));
    bool seen = false;
    for (int k = 0; k < taken && !seen; ++k) seen = out[k] == t;
    out[taken++] = seen ? j : t;
  }
  std::sort(out, out + taken);
}

// Hashed (one splitmix64 output): NormalRng steps its state by k, so seeds k apart would be one stream a draw apart.
std::uint64_t lab_seed(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  const std::uint64_t k = 0x9E3779B97F4A7C15ULL;
  return NormalRng(((seed * k + stream) * k + index) * k).next_u64();
}

DecoderWeightsT<float> lab_init_weights(const LabOptions& o, PositionMethod m) {
  DecoderWeightsT<float> w = init_decoder_weights<float>(lab_decoder_config(o, m), lab_seed(o.seed, 0));
  w.tok_emb *= static_cast<float>(kEmbStddev / kInitStddev);  // embeddings as nn.Embedding's N(0, 1)
  w.pos_emb *= static_cast<float>(kEmbStddev / kInitStddev);  // (empty unless learned)
  return w;
}

void lab_train_batch(const LabOptions& o, int step, SequenceBatch& b) {
  NormalRng rng(lab_seed(o.seed, 1, static_cast<std::uint64_t>(step)));
  int rows_of_size[kLabTrainLenMax + 1] = {};
  for (int r = 0; r < o.batch; ++r) ++rows_of_size[1 + static_cast<int>(rng.uniform() * o.train_len)];
  b.clear();
  for (int n = 1; n <= o.train_len; ++n) {
    if (rows_of_size[n] == 0) continue;
    NormalRng sizes(rng.next_u64());  // one stream per size, in increasing size
    append_lab_sequences(b, o.task, n, rows_of_size[n], sizes);
  }
  if (o.positions == LabPositions::Random) place_sequences(b, lab_position_range(o), lab_seed(o.seed, 3, step));
}

double lab_learning_rate(const LabOptions& o, int step) {
  const int warm = std::min(o.warmup, o.steps / 2);
  if (step < warm) return o.lr * (step + 1) / warm;
  const double span = std::max(1, o.steps - warm);
  return o.lr * 0.5 * (1.0 + std::cos(kPi * (step - warm) / span));
}

double lab_decay_only_change(const LabOptions& o, int steps) {
  double kept = 1.0;
  for (int t = 0; t < steps; ++t) kept *= 1.0 - lab_learning_rate(o, t) * o.weight_decay;
  return 1.0 - kept;
}

Expected<std::pair<double, double>> lab_accuracy(const DecoderConfig& c, const DecoderWeightsT<float>& w, LabTask t,
                                                 int n, int count, std::uint64_t seed, DecoderWorkspace<float>& ws,
                                                 SequenceBatch& batch, LabPlacement at) {
  NormalRng rng(seed);  // one stream over every chunk: the sequences of make_lab_batch(t, n, count, seed)
  NormalRng place(at.position_seed);  // and one for their positions
  const int chunk = std::max(1, kLabEvalRows / lab_input_len(t, n));
  long long exact = 0, right = 0, total = 0;
  long long p[4 * kLabTrainLenMax + kRepeatPeriod];
  for (int done = 0; done < count; done += chunk) {
    batch.clear();
    append_lab_sequences(batch, t, n, std::min(chunk, count - done), rng);
    for (int s = 0; at.range > 0 && s < batch.sequences(); ++s) {
      lab_sample_positions(place, batch.length[std::size_t(s)], at.range, p);
      batch.set_positions(s, p);
    }
    if (auto e = check_sequence_batch(c, batch)) return *e;
    batch_forward(c, w, batch, ws, false);
    for (int s = 0; s < batch.sequences(); ++s) exact += sequence_exact(ws, batch, s, right, total);
  }
  return std::make_pair(double(exact) / count, double(right) / double(total));
}

Expected<std::pair<double, double>> lab_accuracy(const DecoderConfig& c, const DecoderWeightsT<float>& w, LabTask t,
                                                 int n, int count, std::uint64_t seed, LabPlacement at) {
  DecoderWorkspace<float> ws;
  SequenceBatch batch;
  return lab_accuracy(c, w, t, n, count, seed, ws, batch, at);
}

// [SECTION] LabRun

namespace {
// Means of one curve over the runs that have its length n: null when any of them is null or none has it.
void combine_curve(const std::vector<LabSeedRun>& runs, std::vector<std::optional<double>> LabSeedRun::*curve,
                   std::vector<std::optional<double>>& mean) {
  std::size_t longest = 0;
  for (const LabSeedRun& r : runs) longest = std::max(longest, (r.*curve).size());
  mean.assign(longest, std::nullopt);
  for (std::size_t n = 0; n < longest; ++n) {
    double sum = 0;
    int count = 0;
    bool null = false;
    for (const LabSeedRun& r : runs) {
      if (n >= (r.*curve).size()) continue;
      const std::optional<double>& v = (r.*curve)[n];
      null = null || !v;
      sum += v.value_or(0);
      ++count;
    }
    if (count > 0 && !null) mean[n] = sum / count;
  }
}
}  // namespace

void lab_combine_runs(LabMethodResult& m) {
  combine_curve(m.runs, &LabSeedRun::accuracy, m.accuracy);
  combine_curve(m.runs, &LabSeedRun::token_accuracy, m.token_accuracy);
  combine_curve(m.runs, &LabSeedRun::accuracy_scaled, m.accuracy_scaled);
  combine_curve(m.runs, &LabSeedRun::token_accuracy_scaled, m.token_accuracy_scaled);
  combine_curve(m.runs, &LabSeedRun::accuracy_sequential, m.accuracy_sequential);
  combine_curve(m.runs, &LabSeedRun::token_accuracy_sequential, m.token_accuracy_sequential);
  m.error.reset();
  m.reached_bar = !m.runs.empty();
  for (const LabSeedRun& r : m.runs) {
    if (!m.error) m.error = r.error;
    m.reached_bar = m.reached_bar && r.reached_bar;
  }
}

LabRun::LabRun(LabOptions o) {
  result_.options = std::move(o);
  if (!done()) start_run();
}

bool LabRun::done() const {
  const LabOptions& o = result_.options;
  return run_ >= o.methods.size() * static_cast<std::size_t>(std::max(1, o.seeds));
}

double LabRun::progress() const {  // a run's training counts as all its steps once it has stopped
  const LabOptions& o = result_.options;
  const int passes = 1 + (o.rope_scaling != ScalingType::None) + (o.positions == LabPositions::Random);
  const double per_run = o.steps + 4.0 * o.train_len * passes;
  const double runs = double(o.methods.size()) * std::max(1, o.seeds);
  const double now = run_ * per_run + (phase_ == Phase::Eval ? o.steps : step_) + eval_n_;
  return runs == 0 ? 1.0 : std::min(1.0, now / (per_run * runs));
}

void LabRun::start_run() {
  const LabOptions& o = result_.options;
  const std::size_t seeds = static_cast<std::size_t>(std::max(1, o.seeds));
  const PositionMethod method = o.methods[run_ / seeds];
  run_options_ = o;
  run_options_.seed = o.seed + run_ % seeds;
  config_ = lab_decoder_config(o, method);
  weights_ = lab_init_weights(run_options_, method);
  adam_ = adamw_init<float>(config_);
  step_ = eval_n_ = check_n_ = 0;
  phase_ = Phase::Train;
  scaled_.reset();
  if (method == PositionMethod::Rope && o.rope_scaling != ScalingType::None)
    if (Expected<DecoderConfig> c = lab_scaled_config(o)) scaled_ = *c;  // parse_lab_options checked it
  passes_ = {Pass::AsTrained};
  if (scaled_) passes_.push_back(Pass::Scaled);
  if (o.positions == LabPositions::Random) passes_.push_back(Pass::Sequential);
  if (run_ % seeds == 0) {
    result_.methods.emplace_back();
    result_.methods.back().method = method;
  }
  LabSeedRun r;
  r.seed = run_options_.seed;
  r.train_loss.reserve(static_cast<std::size_t>(o.steps));
  result_.methods.back().runs.push_back(std::move(r));
  // A fresh workspace: a run's sums must not depend on the runs before it (the vectorised ones round by where a
  // row starts, which the shapes a workspace has seen decide), so each run is the one-run lab's, bit for bit.
  ws_ = DecoderWorkspace<float>();
  batch_ = SequenceBatch();
  reserve_training(o, config_, weights_, batch_, ws_);
}

void LabRun::step() {
  if (done()) return;
  const auto t0 = std::chrono::steady_clock::now();
  const bool training = phase_ == Phase::Train;
  if (phase_ == Phase::Train) train_step();
  else if (phase_ == Phase::Check) check_length();
  else eval_length();
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result_.seconds += dt;
  if (training) result_.train_seconds += dt;
}

// One AdamW step on lab_train_batch's rows, all through one forward and backward pass: the loss is the mean over
// every answer of the batch.
void LabRun::train_step() {
  const LabOptions& o = run_options_;
  lab_train_batch(o, step_, batch_);
  const float loss = batch_forward(config_, weights_, batch_, ws_, true);  // valid by construction
  batch_backward(config_, weights_, batch_, ws_);
  AdamWConfig opt;
  opt.lr = lab_learning_rate(o, step_);
  opt.weight_decay = o.weight_decay;
  adamw_step(config_, opt, weights_, ws_.grad, adam_);
  result_.tokens_trained += batch_.rows();
  current().train_loss.push_back(loss);
  ++step_;
  if (step_ >= o.steps) {
    finish_training();
  } else if (o.check_every > 0 && step_ % o.check_every == 0) {
    phase_ = Phase::Check;
    check_n_ = o.train_len;
  }
}

// Checks the next training length, longest first, against the bar; the first one below it resumes training.
void LabRun::check_length() {
  const LabOptions& o = run_options_;
  const int n = check_n_;
  const auto acc = lab_accuracy(config_, weights_, o.task, n, o.eval_count, lab_seed(o.seed, 2, n), ws_, batch_,
                                {lab_position_range(o), lab_seed(o.seed, 4, n)});
  if (!acc || acc->first < kLabBar) {
    phase_ = Phase::Train;
    return;
  }
  if (--check_n_ == 0) finish_training();
}

void LabRun::finish_training() {
  LabSeedRun& r = current();
  const PositionMethod method = result_.methods.back().method;
  r.steps_run = step_;
  if (method == PositionMethod::Learned) r.table_row_change = table_row_change(run_options_, weights_);
  if (result_.methods.back().runs.size() == 1) trained_.push_back({method, config_, weights_, step_});
  phase_ = Phase::Eval;
  eval_n_ = 0;
}

// Evaluates the next length n = 1..4*train_len of the current pass: as trained (the first error, a learned table too
// short, is kept in `error`), then for rope with scaling the same lengths (the same sequences and positions) with the
// scaled frequencies, then with random positions the same sequences at 0..T-1.
void LabRun::eval_length() {
  const LabOptions& o = run_options_;
  LabSeedRun& r = current();
  const int per = 4 * o.train_len;
  const Pass pass = passes_[std::size_t(eval_n_ / per)];
  const int n = eval_n_++ % per + 1;
  const LabPlacement at =
      pass == Pass::Sequential ? LabPlacement{} : LabPlacement{lab_position_range(o), lab_seed(o.seed, 4, n)};
  const auto acc = lab_accuracy(pass == Pass::Scaled ? *scaled_ : config_, weights_, o.task, n, o.eval_count,
                                lab_seed(o.seed, 2, n), ws_, batch_, at);
  auto& exact = pass == Pass::Scaled       ? r.accuracy_scaled
                : pass == Pass::Sequential ? r.accuracy_sequential
                                           : r.accuracy;
  auto& answers = pass == Pass::Scaled       ? r.token_accuracy_scaled
                  : pass == Pass::Sequential ? r.token_accuracy_sequential
                                             : r.token_accuracy;
  exact.push_back(acc ? std::optional<double>(acc->first) : std::nullopt);
  answers.push_back(acc ? std::optional<double>(acc->second) : std::nullopt);
  if (!acc && !r.error) r.error = acc.error().full();
  if (eval_n_ == per) {
    r.reached_bar = true;
    for (int k = 0; k < o.train_len; ++k) r.reached_bar = r.reached_bar && r.accuracy[k].value_or(0) >= kLabBar;
  }
  r.evaluated = eval_n_ >= per * int(passes_.size());
  lab_combine_runs(result_.methods.back());
  if (!r.evaluated) return;
  if (++run_ < o.methods.size() * static_cast<std::size_t>(std::max(1, o.seeds))) start_run();
}

LabResult run_lab(const LabOptions& o) {
  LabRun run(o);
  while (!run.done()) run.step();
  return run.result();
}

// [SECTION] JSON

namespace {
// A method: the means over its runs, the first seed's loss, steps and table (as a one-seed lab gives them), the runs.
void write_method(JsonWriter& w, const LabMethodResult& m) {
  if (m.runs.empty()) return;
  const LabSeedRun& first = m.first();
  w.key(position_method_name(m.method)).begin_object();
  w.key("train_loss").list(first.train_loss);
  w.key("accuracy").list(m.accuracy);
  w.key("token_accuracy").list(m.token_accuracy);
  w.key("error");
  if (m.error) w.value(*m.error); else w.null();
  w.field("steps_run", first.steps_run).field("reached_bar", m.reached_bar);
  if (m.method == PositionMethod::Learned) w.key("table_row_change").list(first.table_row_change);
  if (!m.accuracy_scaled.empty()) {
    w.key("accuracy_scaled").list(m.accuracy_scaled);
    w.key("token_accuracy_scaled").list(m.token_accuracy_scaled);
  }
  if (!m.accuracy_sequential.empty()) {
    w.key("accuracy_sequential").list(m.accuracy_sequential);
    w.key("token_accuracy_sequential").list(m.token_accuracy_sequential);
  }
  w.key("runs").begin_array();
  for (const LabSeedRun& r : m.runs) write_lab_run(w, r);
  w.end_array();
  w.end_object();
}

// The scaling options and the frequencies they give rope (nothing without scaling, so such documents are unchanged).
void write_scaling(JsonWriter& w, const LabOptions& o) {
  if (o.rope_scaling == ScalingType::None) return;
  w.field("rope_scaling", lab_scaling_name(o.rope_scaling)).field("rope_factor", o.rope_factor);
  if (const Expected<DecoderConfig> c = lab_scaled_config(o))
    w.key("rope_inv_freq_scaled").list(c->inv_freq).field("rope_attention_factor", c->attention_factor);
}

void write_options(JsonWriter& w, const LabOptions& o) {
  std::vector<int> lengths;
  for (int n = 1; n <= 4 * o.train_len; ++n) lengths.push_back(n);
  w.field("task", lab_task_name(o.task)).field("train_len", o.train_len);
  w.key("eval_lengths").list(lengths);
  w.field("steps", o.steps)
      .field("seed", (long long)o.seed)
      .field("seeds", o.seeds)
      .field("vocab", kLabVocab)
      .field("sep", kLabSep);
  w.field("d_model", o.d_model).field("heads", o.heads).field("layers", o.layers).field("d_ff", o.d_ff);
  w.field("batch", o.batch).field("lr", o.lr).field("weight_decay", o.weight_decay);
  w.field("warmup", std::min(o.warmup, o.steps / 2)).field("eval_count", o.eval_count);
  w.field("check_every", o.check_every).field("bar", kLabBar).field("max_position", lab_table_len(o));
  w.field("trained_positions", lab_trained_positions(o));
  w.field("positions", lab_positions_name(o.positions)).field("position_range", lab_position_range(o));
  write_scaling(w, o);
}
}  // namespace

std::string lab_json(const LabResult& r) {
  JsonWriter w(true);
  w.begin_object();
  write_options(w, r.options);
  const double tps = r.train_seconds > 0 ? double(r.tokens_trained) / r.train_seconds : 0.0;
  w.field("seconds", r.seconds).field("tokens_per_s", tps);
  w.key("methods").begin_object();
  for (const LabMethodResult& m : r.methods) write_method(w, m);
  w.end_object();
  return w.end_object().str();
}

}  // namespace rv
