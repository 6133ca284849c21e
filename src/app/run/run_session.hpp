// The Run it feature's state and its runs (docs/run-it.md): the loaded checkpoint on the held-out sample, loss by
// position under each rope ticked, the shift test and attention by distance, one forward pass per frame.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "app/state/state.hpp"
#include "core/base/json_writer.hpp"
#include "core/infer/run_study.hpp"

namespace rv {

// What the panel sets before Run.
struct RunSettings {
  long long length = 1024;  // tokens per window
  int windows = 2;
  bool rope[kRunRopeCount] = {true, true, false, true, true, true, false};  // by RunRope
  double factor = 4.0;
  bool shift = true;  // the shift test: the first 256 tokens at 0, the context, and twice it
};

struct RunSession {
  RunSettings settings;
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
  double seconds = 0;        // forward time so far
  // What the panel draws, built when a pass lands (steady frames allocate nothing): each curve's moving mean, the
  // status and the sentence.
  std::vector<std::vector<double>> smoothed;
  std::string status = "not run yet", sentence;
  // The model as its config sets it (the config's scaling curve, else the unscaled one): its index in the curves and
  // its mean loss at positions 64..context-1 and context..length-1 (NaN until measured), for the status strip.
  int model_curve = -1;
  double model_in = 0.0 / 0.0, model_past = 0.0 / 0.0;
};

// The loss curves' moving mean: 49 positions.
constexpr int kRunSmoothHalf = 24;

// The text the study reads: the first 16 KB of heldout.txt, which the demo models never saw (web/models).
std::string_view heldout_sample();

// The session, made on first use.
RunSession& run_session(App& app);
const RunSession* find_run_session(const App& app);

// Plans the study of the loaded checkpoint with the settings; false with RunSession::error set (no weights, no
// config, a family the pass does not run, a text too short). A run in progress is replaced.
bool run_start(App& app);
// Runs the next pass (one per frame), or on the page asks for the checkpoint's bytes first.
void run_tick(App& app);
// Stops: the curves so far stay.
void run_stop(App& app);
// Whether a run waits for the page to supply a file (SuppliedBytes::wanted is set to it).
bool run_wants_bytes(const App& app);
// "pass 3 of 9 · 2.1 s" or the finished study's summary.
std::string run_status(const RunSession& s);
// The measured sentence: the loss in range and past the trained context with no scaling, and each scaling's; "" until
// a window past the context is done.
std::string run_sentence(const RunSession& s);
// state().run (docs/window-ropeviz.md): the run's model, status, each curve's mean loss in range and past the trained
// context, the shift test and the sentence; null before any run.
void run_state(JsonWriter& j, const App& app);

}  // namespace rv
