// The eval protocol's decoder_grad op (docs/lab.md): the tiny decoder's loss and
// every weight's gradient.
#pragma once

#include "core/base/json_fields.hpp"
#include "core/base/json_writer.hpp"

namespace rv::cli {

// {"op":"decoder_grad","config":{...},"weights":{"tok_emb":[...],...},"tokens":[[...]],"targets":[[...]]} and
// optionally "positions":[[...]] (like tokens; default 0..T-1) -> {"loss":x,"grads":{"tok_emb":[...],...}}, every
// weight flattened row-major like the request's.
std::optional<Error> op_decoder_grad(FieldReader& r, JsonWriter& w);

}  // namespace rv::cli
