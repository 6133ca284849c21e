// Run it for PyTorch (docs/run-export.md): ropeviz_run.py and one request per rope ticked for the panel's settings,
// the passes and cells past one machine (a GPU, torchrun, a 32k context) with the same documents as the CLI's.
#pragma once

#include <vector>

#include "app/state/state.hpp"

namespace rv {

// ropeviz_run.py, and for each rope the settings plan a forward request on window 0's tokens (outputs nll: its loss
// by position) when the loss curves are ticked, a passkey request of the bench's grid when the bench is; a note says
// the command. Empty, with a note saying why, when the settings cannot be planned (no checkpoint, a text too short).
std::vector<ExportFile> run_torch(App& app);

}  // namespace rv
