// Exports of what the app shows, as text files made from the state: the per-pair table, the score curve, the
// models and the lab's run as CSV, the lab for PyTorch, a picture's name and region. The panels' buttons make them
// (so they sit below the panels); app/shell/host.hpp hands them to the platform (a download, or a file on disk).
#pragma once
#include <string>

#include "app/state/state.hpp"

namespace rv {

// "m100-d8": the view in a file name.
std::string export_tag(const Params& p);
// pair i: theta_i, m*theta_i, (m*theta_i) mod 2pi, wavelength, q's pair before and after RoPE, k's after.
ExportFile export_angles_csv(const App& app);
// offset r = m - n, score at anchor n, score at anchor n + shift (they coincide: RoPE is relative).
ExportFile export_score_csv(const App& app);
// Every preset (model_catalog): base, dims, pairing, scaling, context, critical dim, first negative B(m), costs.
ExportFile export_models_csv(const App& app, const std::vector<CatalogRow>& rows);
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
// The file name of a picture of the current view, "ropeviz-m100-d8.png", or of one panel, "ropeviz-lab-m100-d8.png".
std::string picture_name(const App& app, const std::string& panel = "");
// The region of the picture the UI asked for, in device pixels: the panel's (Ui::picture_panel) as last drawn, or
// nullopt for the whole window.
std::optional<Rect> picture_region(const App& app);

}  // namespace rv
