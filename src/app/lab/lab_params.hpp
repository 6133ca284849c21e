// The lab's link keys (task, methods, train_len, table_len, steps, lab_seed, seeds, positions, position_range) as
// LabOptions and CLI flags, and back; the page's lab(options) object as CLI flags.
#pragma once
#include <string>
#include <string_view>
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

// window.ropeviz.lab's options object as CLI flags: each key is a flag with '_' for '-' (train_len ->
// --train-len); a string or number is its value, an array of strings a comma-separated list (methods). Any other
// shape is a BadRequest naming the key; parse_lab_options then checks the flags themselves. With `workers`, the page's
// own key "workers" (how many Web Workers train the runs: not a flag, and not in the document) is taken out into it
// (0 when absent): a whole number 1..kLabWorkersMax, else a BadRequest saying so.
Expected<std::vector<std::string>> lab_flags_from_json(std::string_view options_json, int* workers = nullptr);
inline constexpr int kLabWorkersMax = 16;

}  // namespace rv
