// The Run it study (docs/run-it.md): a text's loss by position under each rope choice, averaged over windows; the
// same text at shifted positions; attention by distance and the sink. Planned as independent forward passes (jobs)
// that threads, Web Workers or one loop run in any order, then gathered into curves.
#pragma once

#include <string>
#include <vector>

#include "core/infer/forward.hpp"

namespace rv {

// The rope a loss curve is measured under: the unscaled frequencies, the config's own, a scaling of factor
// RunPlan::factor from the trained context, or no rotation at all.
enum class RunRope { None, Config, Linear, Dynamic, Yarn, Llama3, Drop };
constexpr int kRunRopeCount = 7;
const char* run_rope_name(RunRope r);   // "none", "config", "linear", "dynamic", "yarn", "llama3", "drop"
const char* run_rope_label(RunRope r);  // "no scaling", "its config", "linear", ... (the legend)
// The rope_scaling object a scaled choice stands for (rope_type, factor, original_max_position_embeddings = trained;
// Llama 3's low/high frequency factors 1 and 4, as Llama 3.1 ships them).
HfRopeScaling run_rope_scaling(RunRope r, double factor, long long trained);

struct RunPlan {
  std::vector<long long> text;  // the whole text's token ids
  long long length = 1024;      // tokens per window
  int windows = 4;              // windows spread evenly over the text
  std::vector<RunRope> ropes;   // one loss curve each
  double factor = 4.0;
  long long trained = 512;        // the context trained on: scalings start from it
  std::vector<long long> shifts;  // the shift test's offsets, each one pass of window 0's first shift_length
  long long shift_length = 256;
  bool attention = true;   // one pass over window 0 under the config's rope: attention by distance and the sink
  bool pair_norms = true;  // ... and the activations' pair norms (a RoPE model's; a learned table has no pairs)
  int threads = 1;         // each pass's own (native builds)
};

enum class RunJobKind { Loss, Shift, Attention };
struct RunJob {
  RunJobKind kind = RunJobKind::Loss;
  int index = 0;   // the rope's index in RunPlan::ropes, or the shift's in RunPlan::shifts
  int window = 0;  // Loss: which window
  ForwardOptions pass;
};

// The most windows, ropes and shifts a plan takes.
constexpr int kRunMaxWindows = 64, kRunMaxShifts = 16;
constexpr long long kRunMaxShift = 1LL << 40;  // as forward's positions

// Every pass of the plan, losses first (rope by rope, window by window), then shifts, then attention. BadRequest for a
// text shorter than a window (with both lengths), a length under 2 or over kMaxForwardTokens, a factor not in
// (1, 64], too many windows or shifts.
Expected<std::vector<RunJob>> run_jobs(const RunPlan& plan);

// One rope's loss by position: nll summed over the windows done (sum[t] predicts token t + 1).
struct RunCurve {
  RunRope rope = RunRope::None;
  std::vector<double> sum;
  int windows = 0;                   // done
  std::string error;                 // the pass's error (a learned table's IndexError): the curve stops there
  std::vector<double> mean() const;  // [length-1], NaN before any window
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
  int jobs = 0, done = 0;

  explicit RunStudy(const RunPlan& plan = {}, int job_count = 0);
  void add(const RunJob& job, const Expected<ForwardResult>& r);
  bool finished() const { return jobs > 0 && done == jobs; }
};

// A job's result as numbers, for a Web Worker to hand to the page: layers, heads, the nll's length, attention by
// distance's length T (0 when not asked), key heads and pairs (0 without pair norms), the nll, attention by distance
// [L][H][T] and the sink [L][H] (with T > 0), the q and k pair norms [L][H][P] and [L][Hk][P] (with P > 0).
std::vector<double> flatten_run_result(const ForwardResult& r);
// The same back; BadRequest when the count does not add up.
Expected<ForwardResult> unflatten_run_result(const std::vector<double>& n);

// Runs one job: forward() with the job's pass (progress as ForwardOptions::progress).
Expected<ForwardResult> run_job(Checkpoint& c, const HfConfig& config, const RunJob& job);

// The moving mean of y over [t - half, t + half], skipping NaN (NaN where the span has none).
std::vector<double> smooth(const std::vector<double>& y, int half);
// The mean of curve[lo - 1 .. hi - 1] (the loss at positions lo..hi), skipping NaN; NaN when there is none.
double loss_between(const std::vector<double>& curve, long long lo, long long hi);

// The trained context of a config: original_max_position_embeddings of its rope_scaling, else max_position_embeddings
// (0 when it has neither).
long long trained_context(const HfConfig& config);

}  // namespace rv
