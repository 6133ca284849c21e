// A lab run as one standalone PyTorch script (its options baked in) and the data file that pins it to the C++ run.
#pragma once

#include <string>
#include <string_view>

#include "core/lab/lab.hpp"

namespace rv {

// The text of ropeviz_lab.py: Python 3 and PyTorch only. The lab's random stream, tasks and batches ported bit for
// bit (NormalRng, lab_seed, lab_train_batch), the decoder of docs/lab.md for every position method as
// an nn.Module, LabRun's init (the same float32 weights), adamw_step's update, lab_learning_rate, the bar checks and
// the evaluation, writing a document shaped like lab_json's. These options are the defaults of its flags.
// The script is src/core/lab/ropeviz_lab.py, exactly as written for LabOptions() (so it runs as it is, and the tests
// hold the two to each other byte for byte); for other options one line of it changes, and nothing else: the marked
// line
//   DEFAULTS = {"task": "copy", ..., "rope_factor": 4.0}  # ropeviz-cli lab-export writes this line
// (the one that starts with "DEFAULTS = " and ends with that comment), the options as a Python dict, floats written
// as floats. Whatever stands there in the file is replaced, so the file's defaults must be LabOptions()'s. Nothing
// else in the script depends on the options: its docstring names no flags (--print-command prints the run's
// `ropeviz-cli lab` command from them).
std::string lab_torch_script(const LabOptions& o);

// The data file the script's --data reads, one JSON document on one line (JsonWriter's ", " and ": "):
//   {"format": "ropeviz-lab-data", "version": 1, "options": {the script's DEFAULTS as JSON, then "vocab", "sep"},
//    "batches": [{"step": s, "tokens": [[...], ...], "targets": [[...], ...]}, ...],   steps 0..batches-1, ragged
//    "methods": {"rope": {"config": {...decoder_grad's config...}, "weights": {"tok_emb": [...], ...}}, ...}}
// Batches are lab_train_batch's rows in order (the same for every method); weights are lab_init_weights', flattened
// row-major in weight_refs' order, each float the shortest decimal that reads back as the same float.
std::string lab_torch_data(const LabOptions& o, int batches);
inline constexpr int kLabTorchBatches = 50;  // what `ropeviz-cli lab-export` writes unless told otherwise

namespace detail {
// ropeviz_lab.py as it is in the source tree, embedded at build time (src/core/CMakeLists.txt, lab/embed_text.cmake).
std::string_view lab_torch_script_file();
}  // namespace detail

}  // namespace rv
