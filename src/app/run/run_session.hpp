// The Run it feature's state and its runs (docs/run-it.md): the loaded checkpoint on the held-out sample, loss by
// position under each rope ticked, the shift test and attention by distance, one forward pass per frame.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/run/run_text.hpp"
#include "app/state/state.hpp"
#include "core/base/json_writer.hpp"
#include "core/infer/run_study.hpp"

namespace rv {

// What the panel sets before Run.
struct RunSettings {
  long long length = 1024;  // tokens per window
  int windows = 2;
  bool rope[kRunRopeCount] = {true, true, false, true, true, true, false, false};  // by RunRope
  double factor = 4.0;
  bool shift = true;  // the shift test: the first 256 tokens at 0, the context, and twice it
  bool loss = true;   // the loss curves and the attention pass
  // The passkey bench (docs/passkey.md) under each rope: `bench_lengths` lengths evenly up to `length`, depths evenly
  // over [0, 1], trials a cell (seed 0).
  bool bench = false;
  int bench_lengths = 4, bench_depths = 3, bench_trials = 2;
};

struct RunSession {
  RunSettings settings;
  RunText text;      // what it reads (run_text.hpp)
  RunTokens tokens;  // and its tokens for the loaded weights (run_tokens)
  RunPlan plan;
  std::vector<RunJob> jobs;
  RunStudy study;
  std::size_t next = 0;  // the next job to run
  bool running = false, stopped = false;
  std::string error;         // why Run was refused, or a pass's error that ended it
  std::string model_label;   // the checkpoint's, as the load named it
  std::uint64_t serial = 0;  // the weights the run reads
  long long context = 0;     // the model's max_position_embeddings (a learned table's rows)
  long long trained = 0;     // the context trained on before any scaling (trained_context)
  bool learned = false;      // a learned position table: no rope to choose
  double seconds = 0;        // forward time so far (remote: the run's wall time)
  // What the panel draws, built when a pass lands (steady frames allocate nothing): each curve's moving mean, the
  // status and the sentence.
  std::vector<std::vector<double>> smoothed;
  // The attention pass's activation pair norms, mean over layers and heads per rotated pair (Frequencies in use draws
  // them beside the weights' gains): q over query heads, k over key heads; empty until measured.
  std::vector<double> q_act, k_act;
  std::string status = "not run yet", sentence, bench_sentence;
  std::vector<std::string> legends;  // each planned rope's run_rope_legend
  // By RunRope: what its curve measured in and past the trained context, beside no scaling's ("" when not measured);
  // the Context extension panel says it under the method it shows.
  std::string measured[kRunRopeCount];
  // The bench's grids coloured by the share of keys found, or by the key's mean log-probability over [lo, hi] (the
  // cells' range, built with the rest).
  bool bench_by_logprob = false;
  double bench_lo = 0.0, bench_hi = 0.0;
  // The model as its config sets it (the config's scaling curve, else the unscaled one): its index in the curves and
  // its mean loss at positions 64..context-1 and context..length-1 (NaN until measured), for the status strip.
  int model_curve = -1;
  double model_in = 0.0 / 0.0, model_past = 0.0 / 0.0;
  // The page runs the passes in Web Workers (src/platform/web sets `remote`): run_tick leaves them to it, which
  // hands each result to run_deliver. `generation` tells one run's results from a stopped one's; `dispatched`: the
  // platform was asked for this generation's passes; `planned`: the settings the run was planned with.
  bool remote = false, dispatched = false;
  std::uint64_t generation = 0;
  RunSettings planned;
  std::chrono::steady_clock::time_point started;
};

// A study of these settings on the text's token ids (and for the bench the prompts' encoding, as the text's), planned:
// what run_start and a page's worker both build.
struct RunPlanned {
  RunPlan plan;
  std::vector<RunJob> jobs;
  bool learned = false;   // a learned position table: no rope to choose
  long long context = 0;  // max_position_embeddings
  long long trained = 1;  // trained_context
};
// Refuses (BadRequest naming `label`) a family the pass does not run, an id past the model's vocabulary, a bad plan
// (a text shorter than a window).
Expected<RunPlanned> plan_run(const RunSettings& settings, const HfConfig& config, Checkpoint& c,
                              const std::string& label, std::vector<long long> ids, TextEncoder encode);
// The settings as numbers, as the page hands them to a worker, and back (nullopt when they are not 13 numbers).
std::vector<double> run_settings_numbers(const RunSettings& s);
std::optional<RunSettings> run_settings_from(const std::vector<double>& n);

// A rope as the legend and the sentences name it: "YaRN x4", "its config", "RoPE dropped".
std::string run_rope_legend(RunRope r, double factor);

// The loss curves' moving mean: 49 positions.
constexpr int kRunSmoothHalf = 24;

// The text the study reads: the first 16 KB of heldout.txt, which the demo models never saw (web/models).
std::string_view heldout_sample();

// The session, made on first use.
RunSession& run_session(App& app);
const RunSession* find_run_session(const App& app);

// The panel's settings planned on the loaded checkpoint and Run it's text (plan_run, the prompts encoded as the text
// is); BadRequest as run_start says it: no weights, no config, a text the model cannot read, a plan refused.
Expected<RunPlanned> plan_loaded(App& app);
// Plans the study of the loaded checkpoint on the text's tokens with the settings; false with RunSession::error set
// (no weights, no config, a family the pass does not run, a text the model cannot read or too short). A run in
// progress is replaced.
bool run_start(App& app);
// Runs the next pass (one per frame); with `remote` only checks the weights are still the run's.
void run_tick(App& app);
// A job the platform ran for run `generation` (remote): job `index`'s answer; a stale one is dropped. The run
// finishes when every job has come back (the status then gives its wall time).
void run_deliver(App& app, std::uint64_t generation, std::size_t index, const Expected<RunAnswer>& r);
// The platform could not run run `generation`'s passes (remote): it ends with why; the passes back so far stay.
void run_fail(App& app, std::uint64_t generation, const std::string& message);
// Stops: the curves so far stay.
void run_stop(App& app);
// "pass 3 of 9 · 2.1 s" or the finished study's summary.
std::string run_status(const RunSession& s);
// The measured sentence: the loss in range and past the trained context with no scaling, and each scaling's; "" until
// a window past the context is done.
std::string run_sentence(const RunSession& s);
// What Run it measured for `rope` on the loaded weights (RunSession::measured), or "" (not run, other weights).
const std::string& run_measured(const App& app, RunRope rope);
// state().run (docs/window-ropeviz.md): the run's model, status, each curve's mean loss in range and past the trained
// context, the shift test and the sentence; null before any run.
void run_state(JsonWriter& j, const App& app);

}  // namespace rv
