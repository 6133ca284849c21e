// The Run it study (docs/run-it.md): a text's loss by position under each rope choice, averaged over windows; the
// same text at shifted positions; attention by distance and the sink; the passkey grid under each rope. Planned as
// independent forward passes (jobs) that threads, Web Workers or one loop run in any order, then gathered into curves.
#pragma once

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/infer/forward.hpp"
#include "core/infer/passkey.hpp"

namespace rv {

// The rope a loss curve is measured under: the unscaled frequencies, the config's own, a scaling of factor
// RunPlan::factor from the trained context, or no rotation at all.
enum class RunRope { None, Config, Linear, Dynamic, Yarn, Llama3, LongRope, Drop };
constexpr int kRunRopeCount = 8;
const char* run_rope_name(RunRope r);   // "none", "config", "linear", "dynamic", "yarn", "llama3", "longrope", "drop"
const char* run_rope_label(RunRope r);  // "no scaling", "its config", "linear", ... (the legend)
// The rope_scaling object a scaled choice stands for (rope_type, factor, original_max_position_embeddings = trained;
// Llama 3's low/high frequency factors 1 and 4, as Llama 3.1 ships them; LongRoPE's per-pair short and long factors
// from `longrope`, the config's: they are searched for each model, so a config without them has no LongRoPE).
HfRopeScaling run_rope_scaling(RunRope r, double factor, long long trained, const HfRopeScaling* longrope = nullptr);
// The config's LongRoPE factors (a rope_scaling of type "longrope" with short_factor and long_factor), or nullptr.
const HfRopeScaling* config_longrope(const HfConfig& config);

struct RunPlan {
  std::vector<long long> text;  // the whole text's token ids
  long long length = 1024;      // tokens per window
  int windows = 4;              // windows spread evenly over the text
  std::vector<RunRope> ropes;   // one loss curve each
  double factor = 4.0;
  long long trained = 512;        // the context trained on: scalings start from it
  std::vector<long long> shifts;  // the shift test's offsets, each one pass of window 0's first shift_length
  long long shift_length = 256;
  bool loss = true;        // the loss curves (windows x ropes); without them only the bench's and the shifts' passes
  bool attention = true;   // one pass over window 0 under the config's rope: attention by distance and the sink
  bool pair_norms = true;  // ... and the activations' pair norms (a RoPE model's; a learned table has no pairs)
  // The passkey grid under each rope (lengths, depths, trials, seed, the prompts' encoding; its pass options are each
  // rope's): no lengths, no bench.
  PasskeyRequest passkey;
  std::optional<HfRopeScaling> longrope;  // the config's LongRoPE factors (config_longrope), for RunRope::LongRope
  int threads = 1;                        // each pass's own (native builds)
};

enum class RunJobKind { Loss, Shift, Attention, Passkey };
struct RunJob {
  RunJobKind kind = RunJobKind::Loss;
  int index = 0;   // the rope's index in RunPlan::ropes, or the shift's in RunPlan::shifts
  int window = 0;  // Loss: which window; Passkey: which cell, length i and depth j as i * depths + j
  ForwardOptions pass;
  std::shared_ptr<const PasskeyRequest> passkey;  // Passkey: the grid, with this rope's pass options
};
// What a job gives: a forward pass's result, or a passkey cell's.
using RunAnswer = std::variant<ForwardResult, PasskeyCell>;

// The most windows, ropes and shifts a plan takes.
constexpr int kRunMaxWindows = 64, kRunMaxShifts = 16;
constexpr long long kRunMaxShift = 1LL << 40;  // as forward's positions

// Every pass of the plan, losses first (rope by rope, window by window), then shifts, then attention, then the passkey
// cells (rope by rope, in the grid's order). BadRequest for a text shorter than a window (with both lengths) when a
// pass reads it, a length under 2 or over kMaxForwardTokens, a factor not in (1, 64], too many windows or shifts, a
// passkey grid outside passkey()'s limits, LongRoPE without the config's factors.
Expected<std::vector<RunJob>> run_jobs(const RunPlan& plan);

// One rope's loss by position: nll summed over the windows done (sum[t] predicts token t + 1).
struct RunCurve {
  RunRope rope = RunRope::None;
  std::vector<double> sum;
  int windows = 0;                   // done
  std::string error;                 // the pass's error (a learned table's IndexError): the curve stops there
  std::vector<double> mean() const;  // [length-1], NaN before any window
};

// One rope's passkey grid: cell [length][depth], NaN until done; a cell's error (a learned table's IndexError, a length
// shorter than the prompt) stays with it.
struct RunGrid {
  RunRope rope = RunRope::None;
  std::vector<std::vector<double>> accuracy, key_logprob;
  std::vector<std::vector<std::string>> errors;
  int done = 0;  // cells
};

struct RunShift {
  long long shift = 0;
  double loss = 0;  // mean nll over the shifted pass; NaN until done
  std::string error;
  bool done = false;
};

// The plan's results so far: add() each job's result in any order; the same jobs give the same numbers.
struct RunStudy {
  std::vector<RunCurve> curves;
  std::vector<RunShift> shifts;
  std::vector<std::vector<std::vector<double>>> by_distance;                 // [L][H][T] from the attention pass
  std::vector<std::vector<double>> sink;                                     // [L][H]
  std::vector<std::vector<std::vector<double>>> q_pair_norms, k_pair_norms;  // [L][H][pairs], [L][Hk][pairs]
  std::string attention_error;
  std::vector<long long> lengths;  // the passkey grids' axes (the plan's)
  std::vector<double> depths;
  std::vector<RunGrid> grids;  // one per rope when the plan has a bench
  int jobs = 0, done = 0;

  explicit RunStudy(const RunPlan& plan = {}, int job_count = 0);
  void add(const RunJob& job, const Expected<RunAnswer>& r);
  bool finished() const { return jobs > 0 && done == jobs; }
};

// A job's answer as numbers, for a Web Worker to hand to the page. A pass: layers, heads, the nll's length, attention
// by distance's length T (0 when not asked), key heads and pairs (0 without pair norms), the nll, attention by distance
// [L][H][T] and the sink [L][H] (with T > 0), the q and k pair norms [L][H][P] and [L][Hk][P] (with P > 0). A passkey
// cell: its accuracy and key log-probability.
std::vector<double> flatten_run_answer(const RunAnswer& a);
// The same back for `job`; BadRequest when the count does not add up.
Expected<RunAnswer> unflatten_run_answer(const RunJob& job, const std::vector<double>& n);

// Runs one job: forward() with the job's pass (progress as ForwardOptions::progress), or the passkey cell.
Expected<RunAnswer> run_job(Checkpoint& c, const HfConfig& config, const RunJob& job);

// The moving mean of y over [t - half, t + half], skipping NaN (NaN where the span has none).
std::vector<double> smooth(const std::vector<double>& y, int half);
// The mean of curve[lo - 1 .. hi - 1] (the loss at positions lo..hi), skipping NaN; NaN when there is none.
double loss_between(const std::vector<double>& curve, long long lo, long long hi);

// The trained context of a config: original_max_position_embeddings of its rope_scaling, else max_position_embeddings
// (0 when it has neither).
long long trained_context(const HfConfig& config);

}  // namespace rv
