// The lab inside the app: start a run from the link's settings (or any CLI flags), advance it a time slice per
// frame so the UI stays responsive, stop it keeping partial curves, and read its progress.
#pragma once
#include <string>
#include <vector>

#include "app/lab/lab_params.hpp"
#include "app/state/state.hpp"

namespace rv {

class JsonWriter;  // core/base/json_writer.hpp

// Training time per frame while a run trains on this thread (the app's own engine, LabSerial; the desktop trains on
// threads and the page in Web Workers: LabSession::engine).
constexpr double kLabSliceMs = 15.0;

// The flags of the panel's Run: the link's settings and the session's scaling.
std::vector<std::string> lab_flags(const App& app);
// "rope + linear x4": the legend and table name of rope's scaled curve (written into buf, no allocation).
const char* lab_scaled_label(const LabOptions& o, char* buf, std::size_t size);

// Starts a run of these CLI flags (parse_lab_options: a refused flag sets LabSession::error and returns false,
// leaving any finished run as it was). A run in progress is replaced. The lab's link keys take the run's values.
bool lab_start(App& app, const std::vector<std::string>& flags);
// Runs training steps for about budget_ms (at least one step), or, for runs that train elsewhere, takes what has
// arrived (once: no spinning); finishing builds LabSession::result_json.
void lab_tick(App& app, double budget_ms);
// Stops the run in progress (threads and workers too); its curves so far stay (stopped).
void lab_stop(App& app);

// "rope: step 120 / 300 · loss 0.53 · 25,000 tokens/s · 20 s left", for runs trained elsewhere "runs 5 of 18 done ·
// ..." (or the finished run's summary).
std::string lab_status(const App& app);
// Seconds left at the run's measured rate; 0 when unknown or done.
double lab_seconds_left(const LabEngine& run);

// state().lab: progress while it runs, and the finished (or stopped) run's document as `ropeviz-cli lab` prints it.
void lab_state(JsonWriter& j, const LabSession& lab);

}  // namespace rv
