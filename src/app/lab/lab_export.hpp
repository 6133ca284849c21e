// The lab's exports: its run as CSV, its experiment for PyTorch, its trained decoders (the panel's buttons).
#pragma once
#include <vector>

#include "app/state/state.hpp"

namespace rv {

// The lab's run, one row per number: method, seed ("mean": the means over the seeds; else one run's seed), series
// (exact_match, token_accuracy, and for rope with --rope-scaling accuracy_scaled, token_accuracy_scaled: x = eval
// length; a run's train_loss: x = step), x, value (empty past a learned table, with its error); the header holds the
// flags that rerun it.
ExportFile export_lab_csv(const App& app);
// The lab's experiment for PyTorch (core/lab/lab_torch.hpp): ropeviz_lab.py and ropeviz_lab_data.json (initial weights,
// first kLabTorchBatches batches) for the last run's options, or the panel's settings before any run.
std::vector<ExportFile> lab_torch(const App& app);
// The last run's trained decoders (docs/lab.md): ropeviz-lab-<method>-model.safetensors and
// ropeviz-lab-<method>-config.json for each; empty before a run. A method whose weights cannot be written is skipped.
std::vector<ExportFile> lab_weights(const App& app);

}  // namespace rv
