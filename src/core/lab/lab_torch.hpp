// A lab run as one standalone PyTorch script (its options baked in) and the data file that pins it to the C++ run.
#pragma once

#include <string>

#include "core/lab/lab.hpp"

namespace rv {

// The text of ropeviz_lab.py: Python 3 and PyTorch only. The lab's random stream, tasks and batches ported bit for
// bit (NormalRng, lab_seed, lab_train_batch), the decoder of CONTRACTS section 6 for every position method as an
// nn.Module, LabRun's init (the same float32 weights), adamw_step's update, lab_learning_rate, the bar checks and the
// evaluation, writing a document shaped like lab_json's. These options are the defaults of its flags.
std::string lab_torch_script(const LabOptions& o);

// The data file the script's --data reads, one JSON document:
//   {"format": "ropeviz-lab-data", "version": 1, "options": {task, methods, train_len, steps, seed, sizes, batch, lr,
//    weight_decay, warmup, eval_count, check_every, vocab, sep, base, pairing},
//    "batches": [{"step": s, "tokens": [[...], ...], "targets": [[...], ...]}, ...],   steps 0..batches-1, ragged
//    "methods": {"rope": {"config": {...decoder_grad's config...}, "weights": {"tok_emb": [...], ...}}, ...}}
// Batches are lab_train_batch's rows in order (the same for every method); weights are lab_init_weights', flattened
// row-major in weight_refs' order, each float written with 9 significant digits (reads back to the same float).
std::string lab_torch_data(const LabOptions& o, int batches);
inline constexpr int kLabTorchBatches = 50;  // what `ropeviz-cli lab-export` writes unless told otherwise

namespace detail {
// The script with %DEFAULTS% (a Python dict's body) and %FLAGS% (lab flags) still to fill in (lab_torch_script.cpp).
std::string lab_torch_script_template();
}  // namespace detail

}  // namespace rv
