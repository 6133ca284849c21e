// The eval protocol's passkey op (docs/passkey.md): a key hidden at each depth of each length, scored teacher-forced.
#pragma once

#include "cli/eval_weights.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/json_writer.hpp"

namespace rv::cli {

// {"op":"passkey", the checkpoint's fields, "lengths", "depths", "trials", "seed", optional "tokenizer",
//  "add_special_tokens", "rope_scaling", "rope", "threads"} -> {"lengths","depths","accuracy","key_logprob"}
std::optional<Error> op_passkey(FieldReader& r, JsonWriter& w);
// The same on a checkpoint already open (the request's "file", "index", "config" and "preset" are not read).
std::optional<Error> passkey_document(FieldReader& r, ModelCheckpoint& m, JsonWriter& w);
// Its fields checked as passkey_document checks them, without a checkpoint: run-export.
std::optional<Error> check_passkey_request(FieldReader& r);

}  // namespace rv::cli
