// The eval protocol's forward op (docs/run-it.md): a checkpoint's causal LM on tokens or byte-level text.
#pragma once

#include "cli/request.hpp"

namespace rv::cli {

// {"op":"forward","file"|"index":PATH,"config"|"preset", "tokens":[ids] | "text":"...", optional "positions",
//  "rope_scaling" (an object or "none"), "rope" ("apply" | "drop"), "outputs" (nll, logits, attention, hidden,
//  attention_by_distance, sink, qk_pair_norms)} -> {"nll":[T-1], and each output asked for}
Expected<json> op_forward(Request& r);

}  // namespace rv::cli
