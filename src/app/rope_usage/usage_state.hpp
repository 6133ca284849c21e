// The Frequencies in use panel's state in App (App::usage): its walk over a checkpoint's layers; data only.
#pragma once
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "core/models/hf_config.hpp"
#include "core/weights/byte_source.hpp"
#include "core/weights/rope_usage.hpp"

namespace rv {

// The "Frequencies in use" panel's walk (app/rope_usage/usage.hpp): core's rope_usage over a loaded RoPE checkpoint,
// one layer per step, its gains kept per layer; what the panel draws and says is built when a layer arrives.
struct UsageWalk {
  std::uint64_t serial = 0;                            // weights_serial it walks
  bool active = false, stop = false, stopped = false;  // stop: Stop pressed, taken by the next step
  std::string note;  // why there is no walk or why it ended early (core's message), or ""
  RopeUsage usage;   // layers measured so far (usage.q/k per layer; q_mean/k_mean over them)
  int total = 0;     // layers the checkpoint holds
  HfConfig config;
  SuppliedBytes::Mark mark;  // the ranges held when the walk began (the headers): kept, the rest let go
  std::uint64_t bytes_start = 0, bytes_read = 0, held_max = 0;  // bytes the walk read; the most held at once
  std::vector<double> layer_ms;                                 // core's time per layer measured
  int head = 0;                                                 // the detail's query head
  // Built when a layer arrives (no per-frame work): [layer][pair] gains, mean over heads, and head `head`'s (its key
  // head's for k), rebuilt when the picker changes
  std::vector<float> q_grid, k_grid, head_q_grid, head_k_grid;
  int head_built = -1;
  float q_max = 0, k_max = 0;
  int strongest = -1, weakest = -1;  // pairs by q_mean
  std::vector<bool> beyond;          // pairs whose wavelength exceeds the context (never a full turn inside it)
  // Gemma 3 (usage.wavelength_local): the mean gains of its full and its sliding layers apart, each kind at its own
  // wavelengths; empty vectors for a kind with no layer measured
  Eigen::VectorXd q_full, k_full, q_sliding, k_sliding;
  int sliding_layers = 0;
  long long context = 0;
  std::string progress_text, sentence;
};

}  // namespace rv
