// The lab's state in App (App::lab): its run, what it shows inside a trained model; data only, read by the house.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/decoder/decoder_cache.hpp"
#include "core/lab/lab.hpp"
#include "core/lab/lab_engine.hpp"
#include "core/rope/scaling.hpp"

namespace rv {

// What the lab's inside views (attention maps, KV-cache decode) show of one trained model; rebuilt when a picker
// changes, not per frame.
struct LabInspect {
  int method = 0, n = 1, layer = 0;  // pickers: index into LabEngine::trained(), sequence size, layer
  std::uint64_t built_serial = 0;
  int built_method = -1, built_n = -1;
  bool built_kv = false;
  std::vector<long long> sequence;  // the whole sequence of size n (the answer's last token included)
  std::vector<long long> tokens;    // what the model reads: all but the last
  AttentionMaps<float> maps;        // [layers][heads] of [T, T]
  std::optional<KvCheck> kv;
  std::string error;  // e.g. a learned table too short for this size
};

// The lab's run (core/lab/lab_engine.hpp), advanced by app/lab/lab_session.hpp a time slice per frame, or polled
// once a frame while its runs train elsewhere (threads, Web Workers).
struct LabSession {
  std::unique_ptr<LabEngine> run;  // the run in progress, or the last one (a stopped run keeps its partial curves)
  // Where a run started here trains: the platform's choice (the desktop's threads, the page's Web Workers), given
  // its options and the flags they were read from; unset, on this thread, a slice per frame (LabSerial).
  std::function<std::unique_ptr<LabEngine>(const LabOptions&, const std::vector<std::string>&)> engine;
  bool running = false;
  bool stopped = false;      // Stop was pressed before the run finished
  std::uint64_t serial = 0;  // counts runs started (window.ropeviz.lab waits for its own)
  std::string error;         // why the last Run was refused (core's message), or ""
  double slice_ms = 0.0;     // time spent training in the last frame
  double last_loss = 0.0;    // the latest training loss, for the progress line
  std::string result_json;   // lab_json of the finished (or stopped) run, built once; "" while running
  // The finished run before this one, kept when a Run starts: the Lab's "sequential vs random" view sets the two side
  // by side when their options differ only in positions and position_range (lab_comparable).
  std::optional<LabResult> previous;
  LabInspect inspect;
  // Context extension rope's final weights are evaluated with too (--rope-scaling, --rope-factor): the panel's combo
  // and field, not link keys; Run passes them on and a run started elsewhere sets them.
  ScalingType rope_scaling = ScalingType::None;
  double rope_factor = LabOptions{}.rope_factor;
};

}  // namespace rv
