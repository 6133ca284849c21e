// The extrapolation lab (docs/lab.md): seeded synthetic tasks, options, a
// time-sliceable training run, its JSON document.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/constants.hpp"
#include "core/base/error.hpp"
#include "core/encodings/learned.hpp"
#include "core/decoder/decoder.hpp"
#include "core/decoder/decoder_workspace.hpp"
#include "core/rope/scaling.hpp"

namespace rv {

// [SECTION] Tasks
// Symbols 0..9 and SEP = 10 (vocab 11). A task instance of size n is a full sequence; the model reads all but its
// last token (inputs) and predicts the next token where the target is >= 0 (-1 elsewhere).
//   copy     x1..xn SEP x1..xn     n answers (the copy); input length 2n
//   reverse  x1..xn SEP xn..x1     n answers (the reversal); input length 2n
//   repeat   p1 p2 p3 p1 p2 p3 ... a random 3-symbol pattern repeated to n + 3 tokens; n answers (every token after
//            the first pattern), each equal to the token 3 places before it: the answer depends only on relative
//            position, never on where the sequence starts; input length n + 2
enum class LabTask { Copy, Reverse, Repeat };
inline constexpr int kLabSymbols = 10;
inline constexpr int kLabSep = 10;
inline constexpr int kLabVocab = 11;
inline constexpr int kRepeatPeriod = 3;

const char* lab_task_name(LabTask t);
std::optional<LabTask> parse_lab_task(const std::string& name);
int lab_input_len(LabTask t, int n);  // tokens the model reads for size n

struct LabBatch {
  TokenRows tokens, targets;  // [B][lab_input_len(task, n)]
};
// `rows` sequences of size n, symbols drawn from NormalRng(seed) (uniform, so identical on every platform).
LabBatch make_lab_batch(LabTask t, int n, int rows, std::uint64_t seed);
// The same sequences appended to a batch, drawing from rng: make_lab_batch(t, n, rows, seed) is `rows` of them from
// NormalRng(seed). Allocates nothing once the batch has held as many rows.
void append_lab_sequences(SequenceBatch& b, LabTask t, int n, int rows, NormalRng& rng);

// [SECTION] Options
// Bounds parse_lab_options enforces on the two sizes a learner picks most (the app's link keys share them).
inline constexpr int kLabTrainLenMax = 64;
inline constexpr int kLabStepsMax = 100000;
inline constexpr int kLabTableLenMax = 4096;  // rows of the learned table (--table-len)
inline constexpr int kLabSeedsMax = 16;        // --seeds
inline constexpr int kLabPositionRangeMax = 8192;  // --position-range
inline constexpr long long kLabSeedMax = kExactWholeMax - 1;  // --seed + --seeds - 1 at most: exact as a JSON number

// The defaults train every method to the bar (kLabBar at n = 1..3) in about 9 s of one core natively: learned, rope,
// sinusoidal and t5 stop after 100-200 steps, alibi and none after 500-850 (seeds 0-2); 2000 steps is the cap.
// On copy up to n = 3 alibi and none sit near 0.9 for long (copying by "the token after the last one like mine"
// fails on repeated symbols); a third layer and 128 rows per step get them past it soonest per unit of compute.
// Where a sequence's tokens sit while the lab trains: at 0..T-1, or at a sorted sample of T distinct positions drawn
// uniformly from [0, R) (Ruoss et al. 2023, "Randomized Positional Encodings Boost Length Generalization").
enum class LabPositions { Sequential, Random };
const char* lab_positions_name(LabPositions p);  // "sequential", "random"
std::optional<LabPositions> parse_lab_positions(std::string_view name);

struct LabOptions {
  LabTask task = LabTask::Copy;
  std::vector<PositionMethod> methods{std::begin(kAllPositionMethods), std::end(kAllPositionMethods)};
  int train_len = 3;   // training sizes n = 1..train_len; evaluation n = 1..4*train_len
  // Rows of the learned table (learned only): 0 = the longest training input exactly; more leaves rows no training
  // input reaches (they keep their random init, shrunk only by weight decay) before the IndexError.
  int table_len = 0;
  int steps = 2000;    // AdamW steps per method at most (a check that finds the bar reached stops it sooner)
  std::uint64_t seed = 0;
  int seeds = 3;       // each method trains from seeds seed .. seed + seeds - 1 (its runs); curves are their means
  LabPositions positions = LabPositions::Sequential;
  int position_range = 0;  // random: R (0: lab_position_range's default); sequential: 0
  int d_model = 32, heads = 4, layers = 3, d_ff = 64;
  int batch = 128;
  double lr = 6e-3, weight_decay = 0.01;
  int warmup = 100;    // linear warm-up steps (capped at steps / 2), then cosine decay to 0
  int eval_count = 100;  // fresh sequences per evaluation length
  int check_every = 50;  // every K steps, stop a method once every training length is at the bar (0: never)
  // Context extension at evaluation: rope's final weights are evaluated again with these frequencies (None: not).
  // Linear, Dynamic or Yarn (the flag's linear, dynamic, yarn), built by lab_scaled_config.
  ScalingType rope_scaling = ScalingType::None;
  double rope_factor = 4.0;  // 1 < factor <= 64; 4 = the evaluation range 4L over the training range L
};
// Exact match a method must reach at every training length (n = 1..train_len) on the evaluation sequences.
inline constexpr double kLabBar = 0.95;
// Tokens after "lab": --task, --methods a,b, --train-len, --table-len, --steps, --seed, --seeds, --positions
// sequential|random, --position-range R, --d-model, --heads, --layers,
// --d-ff, --batch, --lr, --warmup, --eval-count, --check-every, --rope-scaling none|linear|dynamic|yarn (pi and ntk
// read as linear and dynamic), --rope-factor F.
// BadRequest naming the flag for anything else or out of range (--table-len: 0, or at least the longest training
// input).
Expected<LabOptions> parse_lab_options(const std::vector<std::string>& args);
// Positions a training input reaches (0 .. this - 1): the longest training input, lab_input_len(task, train_len);
// with random positions, the range R.
int lab_trained_positions(const LabOptions& o);
// Rows of the learned table: table_len, or lab_trained_positions when it is 0 (random positions: R rows, so the
// IndexError moves to R).
int lab_table_len(const LabOptions& o);
// R of random positions: position_range, or when it is 0, 4 x the longest evaluation input, lab_input_len(task,
// 4 * train_len) (every test size fits, with room for gaps); 0 for sequential positions.
int lab_position_range(const LabOptions& o);
// T distinct positions drawn uniformly from [0, R), sorted, into out (Floyd's sampling: draw j = R - T .. R - 1, take
// t = floor(uniform * (j + 1)), or j when t is taken; then ascending). T <= R.
void lab_sample_positions(NormalRng& rng, int T, int R, long long* out);
// The decoder the lab trains for this method: vocab 11, max_position = lab_table_len (learned).
DecoderConfig lab_decoder_config(const LabOptions& o, PositionMethod m);
// The flag's names for the scalings the lab offers, Hugging Face's rope_type names as scaling_name's: none, linear,
// dynamic, yarn ("?" for the others). parse_lab_scaling reads those and the lab's old names, pi (Linear) and ntk
// (Dynamic); nullopt for anything else (llama3 and longrope too).
const char* lab_scaling_name(ScalingType t);
std::optional<ScalingType> parse_lab_scaling(std::string_view name);
// The rope_scaling the lab evaluates with, for core's rope_scaled_inv_freq (transformers' semantics), with
// Lt = lab_input_len(task, train_len) (the longest training input) and Le = lab_input_len(task, 4 * train_len):
//   linear:  Linear, factor F: theta_i / F
//   dynamic: Dynamic, factor F, max_position_embeddings Lt, seq_len Le (dynamic NTK at the longest evaluation input:
//            base' = base * (F * Le / Lt - (F - 1))^(d/(d-2)))
//   yarn:    Yarn, factor F, original_max_position_embeddings Lt, beta_fast 32, beta_slow 1, attention 0.1 ln F + 1
RopeScaling lab_rope_scaling(const LabOptions& o);
// The rope config of these options with the scaled frequencies (inv_freq, attention_factor) as its override.
Expected<DecoderConfig> lab_scaled_config(const LabOptions& o);

// [SECTION] Training and evaluation
// One method trained from one seed (a run).
struct LabSeedRun {
  std::uint64_t seed = 0;
  std::vector<double> train_loss;                       // one per step
  std::vector<std::optional<double>> accuracy;          // exact match per eval length, null past a learned table
  std::vector<std::optional<double>> token_accuracy;    // per-answer accuracy (teacher-forced argmax)
  std::optional<std::string> error;                     // the first evaluation error (learned: the IndexError)
  // rope with options.rope_scaling: the same final weights evaluated with the scaled frequencies (lab_scaled_config)
  // per eval length; empty for other methods and without scaling
  std::vector<std::optional<double>> accuracy_scaled, token_accuracy_scaled;
  // random positions: the same final weights tested at positions 0..T-1 (accuracy is tested as trained, at random
  // positions); empty for sequential positions
  std::vector<std::optional<double>> accuracy_sequential, token_accuracy_sequential;
  // learned: per table row, |P_final[r] - P_init[r]| / |P_init[r]| when training ended. Rows at or past
  // lab_trained_positions got no gradient: only weight decay moved them (1 - prod(1 - lr_t * weight_decay)).
  std::vector<double> table_row_change;
  int steps_run = 0;         // training steps taken: steps, or fewer when a check found the bar reached
  bool reached_bar = false;  // exact match >= kLabBar at every training length in the final evaluation
  bool evaluated = false;    // every eval length has its number (the run is complete)
};
// One method over its seeds. The curves are the means over the runs, in seed order (sum / count): at an eval length,
// over the runs that evaluated it, null when any of those is null (a learned table too short) or none has yet. With
// one seed they are that run's numbers exactly.
struct LabMethodResult {
  PositionMethod method = PositionMethod::Rope;
  std::vector<LabSeedRun> runs;  // seeds seed, seed + 1, ... (while a lab runs: the ones started so far)
  std::vector<std::optional<double>> accuracy, token_accuracy, accuracy_scaled, token_accuracy_scaled;
  std::vector<std::optional<double>> accuracy_sequential, token_accuracy_sequential;
  std::optional<std::string> error;  // the first run's error that has one
  bool reached_bar = false;          // every run reached the bar
  const LabSeedRun& first() const { return runs.front(); }  // the first seed's run (runs is never empty)
};
// Recomputes m's means, error and reached_bar from its runs (LabRun does after each evaluation).
void lab_combine_runs(LabMethodResult& m);
struct LabResult {
  LabOptions options;
  std::vector<LabMethodResult> methods;
  double seconds = 0;             // wall time inside LabRun::step, training and evaluation
  double train_seconds = 0;       // the training part of it
  long long tokens_trained =
      0;  // input tokens through forward + backward, all methods (tokens_per_s uses train_seconds)
};

// A method's model when its training ended: what the app looks inside (attention maps, KV-cache decode).
struct LabTrained {
  PositionMethod method = PositionMethod::Rope;
  DecoderConfig config;
  DecoderWeightsT<float> weights;
  int steps_run = 0;  // the steps it trained
};

// A lab, advanced one unit of work at a time (a training step, checking one training length against the bar, or
// evaluating one length), so a caller can spread it over frames. Runs go method by method, each method through seeds
// seed .. seed + seeds - 1; the run of seed s is exactly what a one-seed lab with --seed s gives (same init, batches
// and test sequences), whatever the other runs. Init is init_decoder_weights' N(0, 0.02) except tok_emb and pos_emb,
// N(0, 1) like nn.Embedding (the scale of PE(t)). Every check_every steps the training lengths are checked, longest
// first, on the evaluation sequences; when all are at kLabBar the run stops training. A training step allocates
// nothing (buffers are sized when a run starts).
class LabRun {
 public:
  explicit LabRun(LabOptions o);
  void step();
  bool done() const;
  const LabResult& result() const { return result_; }
  double progress() const;  // 0..1
  // The methods whose first seed's training has ended, in run order, with that run's final weights.
  const std::vector<LabTrained>& trained() const { return trained_; }

 private:
  enum class Phase { Train, Check, Eval };
  void start_run();
  LabSeedRun& current() { return result_.methods.back().runs.back(); }
  void train_step();
  void check_length();
  void finish_training();
  void eval_length();
  LabResult result_;
  std::vector<LabTrained> trained_;
  std::size_t run_ = 0;     // runs go method by method, each through its seeds: method run_ / seeds, seed run_ % seeds
  LabOptions run_options_;  // the options with this run's seed
  Phase phase_ = Phase::Train;
  enum class Pass { AsTrained, Scaled, Sequential };  // the evaluations of a run, each over 4 * train_len lengths
  int step_ = 0, eval_n_ = 0, check_n_ = 0;  // eval_n_: pass eval_n_ / (4 * train_len), length eval_n_ % that + 1
  std::vector<Pass> passes_;                 // as trained; then rope with scaling, scaled; random: at 0..T-1
  DecoderConfig config_;
  std::optional<DecoderConfig> scaled_;  // rope with scaling: its evaluation config
  DecoderWeightsT<float> weights_;
  AdamWState<float> adam_;
  SequenceBatch batch_;
  DecoderWorkspace<float> ws_;
};

double lab_learning_rate(const LabOptions& o, int step);  // warm-up then cosine, step 0-based
// How far weight decay alone moves a weight in `steps` steps, relative to it: 1 - prod_t (1 - lr_t * weight_decay).
// A learned table's rows at or past lab_trained_positions get no gradient, so their table_row_change is this.
double lab_decay_only_change(const LabOptions& o, int steps);
// The weights LabRun starts method m from: init_decoder_weights(config, lab_seed(seed, 0)) in float32, tok_emb and
// pos_emb then multiplied by float(1 / 0.02) (N(0, 1)). The same for every run of these options.
DecoderWeightsT<float> lab_init_weights(const LabOptions& o, PositionMethod m);
// Training step `step`'s batch, into b (cleared first): o.batch sizes drawn uniformly from 1..train_len by
// NormalRng(lab_seed(seed, 1, step)), then the rows of each size present, in increasing size, from
// NormalRng(that stream's next_u64()). Random positions: then each sequence in batch order at
// lab_sample_positions(T, R) from one NormalRng(lab_seed(seed, 3, step)). Allocates nothing once b has held as many
// rows.
void lab_train_batch(const LabOptions& o, int step, SequenceBatch& b);
// The seed of one of the run's random streams: init (0), training step (1, step), evaluation length (2, n), a training
// step's positions (3, step), an evaluation length's positions (4, n); distinct
// (seed, stream, index) give unrelated NormalRng streams.
std::uint64_t lab_seed(std::uint64_t seed, std::uint64_t stream, std::uint64_t index = 0);
// Where test sequences sit: at 0..T-1 (range 0), or each at lab_sample_positions(T, range) from one
// NormalRng(position_seed) over the sequences in order.
struct LabPlacement {
  int range = 0;
  std::uint64_t position_seed = 0;
};
// Exact-match and per-answer accuracy of the model on `count` fresh sequences of size n; errors as decoder_forward.
Expected<std::pair<double, double>> lab_accuracy(const DecoderConfig& c, const DecoderWeightsT<float>& w, LabTask t,
                                                 int n, int count, std::uint64_t seed, LabPlacement at = {});
// The same through a caller's workspace and batch, in chunks of about kLabEvalRows rows.
Expected<std::pair<double, double>> lab_accuracy(const DecoderConfig& c, const DecoderWeightsT<float>& w, LabTask t,
                                                 int n, int count, std::uint64_t seed, DecoderWorkspace<float>& ws,
                                                 SequenceBatch& batch, LabPlacement at = {});
inline constexpr int kLabEvalRows = 1024;
// What one method's curves say, for tables and the text layer (lab_report.cpp). Means of exact match over eval
// lengths: inside training (1..L), just past it (L+1..2L) and far past it (2L+1..4L); null when no length of the
// range has a number (a learned table too short, or a run stopped early).
struct LabSummary {
  std::optional<double> inside, near, far;
  std::optional<double> final_loss;  // the last training step's loss (a method: the mean over its runs)
};
// scaled: the same of accuracy_scaled (rope with --rope-scaling; all null when empty).
LabSummary lab_summary(const LabSeedRun& r, int train_len, bool scaled = false);
// A method's summary: of its mean curves, and the mean of its runs' final losses.
LabSummary lab_summary(const LabMethodResult& m, int train_len, bool scaled = false);
// One summary figure of a method over its evaluated runs: the mean (the figure of the mean curve) and the lowest and
// highest run's (the band). All null when no run has the figure.
struct LabBand {
  std::optional<double> mean, lo, hi;
  int runs = 0;  // evaluated runs with the figure
};
struct LabSummaryBands {
  LabBand inside, near, far, final_loss;
  int steps_lo = 0, steps_hi = 0;  // the fewest and most steps a run trained
};
LabSummaryBands lab_summary_bands(const LabMethodResult& m, int train_len, bool scaled = false);
// The lowest and highest of the evaluated runs' values at eval length n (1-based) of one curve; false when no
// evaluated run has a number there.
bool lab_curve_band(const LabMethodResult& m, std::vector<std::optional<double>> LabSeedRun::*curve, int n, double& lo,
                    double& hi);
// Who holds up just past the training length (sizes L+1..2L), in words: the method with the highest mean, and which
// others its band separates from (its worst run above their best) and which it does not. With one seed per method,
// says that one run cannot tell a difference from noise. Empty until two methods have the figure.
std::string lab_past_verdict(const LabResult& r);

// Whether two labs differ only in where they train (positions, position_range), with one sequential and one random:
// the Lab's "sequential vs random" view sets such a pair side by side.
bool lab_comparable(const LabOptions& a, const LabOptions& b);

// Every flag of `ropeviz-cli lab` for these options: parse_lab_options reads them back to equal options, so a run
// can be repeated exactly (the app's Re-run, the CSV's header).
std::vector<std::string> lab_option_flags(const LabOptions& o);

// Drives a LabRun to completion and times it.
LabResult run_lab(const LabOptions& o);
// The lab document `ropeviz-cli lab` prints (every field: docs/lab.md): the options as
// run (task, lengths, steps, seed, vocab, model sizes, the training schedule and the bar, "max_position" (the learned
// table's rows) and "trained_positions"), "seconds", "tokens_per_s", and per method "train_loss", "accuracy",
// "token_accuracy", "error", "steps_run", "reached_bar", learned's "table_row_change". With --rope-scaling:
// "rope_scaling", "rope_factor", "rope_inv_freq_scaled" and "rope_attention_factor" among the options, and rope's
// "accuracy_scaled" and "token_accuracy_scaled".
std::string lab_json(const LabResult& r);

}  // namespace rv
