// The lab's run: float32 training of each position method (AdamW, warm-up + cosine), evaluation per length, JSON.
#include "core/lab.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <type_traits>

#include "core/learned.hpp"

namespace rv {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kInitStddev = 0.02;   // init_decoder_weights' default
constexpr double kEmbStddev = 1.0;     // tok_emb and pos_emb as PyTorch's nn.Embedding: on the scale of PE(t)

// Independent seeded streams: init (0), training batches (1, step), evaluation (2, n).
std::uint64_t lab_seed(std::uint64_t seed, std::uint64_t stream, std::uint64_t index = 0) {
  const std::uint64_t k = 0x9E3779B97F4A7C15ULL;
  return ((seed * k + stream) * k + index) * k;
}

long long count_answers(const TokenRows& targets) {
  long long n = 0;
  for (const auto& row : targets)
    for (long long t : row) n += t >= 0;
  return n;
}

// w *= scale, weight by weight.
void scale_weights(const DecoderConfig& c, DecoderWeightsT<float>& w, float scale) {
  for (auto& r : weight_refs(c, w))
    for (long long k = 0; k < r.size; ++k) r.data[k] *= scale;
}

// acc += g * scale, weight by weight.
void add_scaled(const DecoderConfig& c, DecoderWeightsT<float>& acc, const DecoderWeightsT<float>& g, float scale) {
  auto a = weight_refs(c, acc);
  const auto b = weight_refs(c, g);
  for (std::size_t i = 0; i < a.size(); ++i)
    for (long long k = 0; k < a[i].size; ++k) a[i].data[k] += scale * b[i].data[k];
}

// True when every answer of the row is its logits' argmax; counts right answers and all answers.
bool row_exact(const RowMat<float>& logits, const std::vector<long long>& target, long long& right, long long& total) {
  bool all = true;
  for (Eigen::Index t = 0; t < logits.rows(); ++t) {
    const long long y = target[static_cast<std::size_t>(t)];
    if (y < 0) continue;
    Eigen::Index best = 0;
    logits.row(t).maxCoeff(&best);
    const bool ok = best == y;
    right += ok;
    ++total;
    all = all && ok;
  }
  return all;
}
}  // namespace

double lab_learning_rate(const LabOptions& o, int step) {
  const int warm = std::min(o.warmup, o.steps / 2);
  if (step < warm) return o.lr * (step + 1) / warm;
  const double span = std::max(1, o.steps - warm);
  return o.lr * 0.5 * (1.0 + std::cos(kPi * (step - warm) / span));
}

Expected<std::pair<double, double>> lab_accuracy(const DecoderConfig& c, const DecoderWeightsT<float>& w, LabTask t,
                                                 int n, int count, std::uint64_t seed) {
  const LabBatch b = make_lab_batch(t, n, count, seed);
  const auto out = decoder_forward(c, w, b.tokens, b.targets);
  if (!out) return out.error();
  long long exact = 0, right = 0, total = 0;
  for (std::size_t r = 0; r < b.tokens.size(); ++r) exact += row_exact(out->logits[r], b.targets[r], right, total);
  return std::make_pair(double(exact) / count, double(right) / double(total));
}

// [SECTION] LabRun

LabRun::LabRun(LabOptions o) {
  result_.options = std::move(o);
  if (!done()) start_method();
}

bool LabRun::done() const {
  return method_ >= result_.options.methods.size();
}

double LabRun::progress() const {
  const LabOptions& o = result_.options;
  const double per_method = o.steps + 4.0 * o.train_len;
  const double now = method_ * per_method + step_ + eval_n_;
  return o.methods.empty() ? 1.0 : std::min(1.0, now / (per_method * o.methods.size()));
}

void LabRun::start_method() {
  const LabOptions& o = result_.options;
  config_ = lab_decoder_config(o, o.methods[method_]);
  weights_ = init_decoder_weights<float>(config_, lab_seed(o.seed, 0));
  weights_.tok_emb *= static_cast<float>(kEmbStddev / kInitStddev);  // embeddings as nn.Embedding's N(0, 1)
  weights_.pos_emb *= static_cast<float>(kEmbStddev / kInitStddev);  // (empty unless learned)
  adam_ = adamw_init<float>(config_);
  step_ = eval_n_ = 0;
  LabMethodResult r;
  r.method = o.methods[method_];
  result_.methods.push_back(std::move(r));
}

void LabRun::step() {
  if (done()) return;
  const auto t0 = std::chrono::steady_clock::now();
  const bool training = step_ < result_.options.steps;
  if (training)
    train_step();
  else
    eval_length();
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result_.seconds += dt;
  if (training) result_.train_seconds += dt;
}

// One AdamW step on a batch of sizes drawn uniformly from 1..train_len; rows of one size share a forward pass, and
// the gradients are combined weighted by answers, so the loss is the mean over every answer of the batch.
void LabRun::train_step() {
  const LabOptions& o = result_.options;
  NormalRng rng(lab_seed(o.seed, 1, static_cast<std::uint64_t>(step_)));
  std::map<int, int> rows_of_size;
  for (int r = 0; r < o.batch; ++r) ++rows_of_size[1 + static_cast<int>(rng.uniform() * o.train_len)];
  DecoderWeightsT<float> grad = zero_weights<float>(config_);
  long long answers = 0;
  double loss = 0;
  for (const auto& [n, rows] : rows_of_size) {
    const LabBatch b = make_lab_batch(o.task, n, rows, rng.next_u64());
    const auto g = decoder_loss_and_grad(config_, weights_, b.tokens, b.targets);  // valid by construction
    const long long k = count_answers(b.targets);
    add_scaled(config_, grad, g->grads, static_cast<float>(k));
    loss += double(g->loss) * k;
    answers += k;
    result_.tokens_trained += static_cast<long long>(rows) * lab_input_len(o.task, n);
  }
  scale_weights(config_, grad, 1.0f / static_cast<float>(answers));
  AdamWConfig opt;
  opt.lr = lab_learning_rate(o, step_);
  opt.weight_decay = o.weight_decay;
  adamw_step(config_, opt, weights_, grad, adam_);
  result_.methods.back().train_loss.push_back(loss / answers);
  ++step_;
}

// Evaluates the next length n = 1..4*train_len; the first error (a learned table too short) is kept in `error`.
void LabRun::eval_length() {
  const LabOptions& o = result_.options;
  LabMethodResult& r = result_.methods.back();
  const int n = ++eval_n_;
  const auto acc = lab_accuracy(config_, weights_, o.task, n, o.eval_count, lab_seed(o.seed, 2, n));
  r.accuracy.push_back(acc ? std::optional<double>(acc->first) : std::nullopt);
  r.token_accuracy.push_back(acc ? std::optional<double>(acc->second) : std::nullopt);
  if (!acc && !r.error) r.error = acc.error().full();
  if (eval_n_ < 4 * o.train_len) return;
  if (++method_ < o.methods.size()) start_method();
}

LabResult run_lab(const LabOptions& o) {
  LabRun run(o);
  while (!run.done()) run.step();
  return run.result();
}

// [SECTION] JSON

namespace {
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) {
      out += ' ';
      continue;
    }
    out += ch;
  }
  return out + "\"";
}

template <class T>
std::string json_list(const std::vector<T>& xs) {
  std::string out = "[";
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (i) out += ", ";
    if constexpr (std::is_same_v<T, std::optional<double>>)
      out += xs[i] ? format_number(*xs[i]) : "null";
    else
      out += format_number(static_cast<double>(xs[i]));
  }
  return out + "]";
}

std::string method_json(const LabMethodResult& m) {
  return json_string(position_method_name(m.method)) + ": {\"train_loss\": " + json_list(m.train_loss) +
         ", \"accuracy\": " + json_list(m.accuracy) + ", \"token_accuracy\": " + json_list(m.token_accuracy) +
         ", \"error\": " + (m.error ? json_string(*m.error) : "null") + "}";
}

std::string options_json(const LabOptions& o) {
  std::vector<int> lengths;
  for (int n = 1; n <= 4 * o.train_len; ++n) lengths.push_back(n);
  return "\"task\": " + json_string(lab_task_name(o.task)) + ", \"train_len\": " + std::to_string(o.train_len) +
         ", \"eval_lengths\": " + json_list(lengths) + ", \"steps\": " + std::to_string(o.steps) +
         ", \"seed\": " + std::to_string(o.seed) + ", \"vocab\": " + std::to_string(kLabVocab) +
         ", \"sep\": " + std::to_string(kLabSep) + ", \"d_model\": " + std::to_string(o.d_model) +
         ", \"heads\": " + std::to_string(o.heads) + ", \"layers\": " + std::to_string(o.layers) +
         ", \"d_ff\": " + std::to_string(o.d_ff) + ", \"batch\": " + std::to_string(o.batch) +
         ", \"lr\": " + format_number(o.lr) + ", \"weight_decay\": " + format_number(o.weight_decay) +
         ", \"warmup\": " + std::to_string(std::min(o.warmup, o.steps / 2)) +
         ", \"eval_count\": " + std::to_string(o.eval_count) +
         ", \"max_position\": " + std::to_string(lab_input_len(o.task, o.train_len));
}
}  // namespace

std::string lab_json(const LabResult& r) {
  std::string out = "{" + options_json(r.options);
  const double tps = r.train_seconds > 0 ? double(r.tokens_trained) / r.train_seconds : 0.0;
  out += ", \"seconds\": " + format_number(r.seconds) + ", \"tokens_per_s\": " + format_number(tps);
  out += ", \"methods\": {";
  for (std::size_t i = 0; i < r.methods.size(); ++i) out += (i ? ", " : "") + method_json(r.methods[i]);
  return out + "}}";
}

}  // namespace rv
