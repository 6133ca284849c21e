// The lab's link keys (task, methods, train_len, table_len, steps, lab_seed) as LabOptions and CLI flags, and back.
#pragma once
#include <string>
#include <vector>

#include "app/state/state.hpp"

namespace rv {

// The LabOptions Params' lab keys ask for (the rest core's defaults).
LabOptions lab_options(const Params& p);
// The same settings as `ropeviz-cli lab` flags, e.g. {"--task", "copy", "--methods", "rope,alibi", ...}, plus
// --rope-scaling and --rope-factor when scaling is not none (the LabSession's choice: no link key).
std::vector<std::string> lab_flags(const Params& p, ScalingType scaling = ScalingType::None,
                                   double factor = LabOptions{}.rope_factor);
// The lab keys take a run's options (a run started elsewhere, e.g. window.ropeviz.lab, shows in the panel and link).
void set_lab_params(Params& p, const LabOptions& o);

}  // namespace rv
