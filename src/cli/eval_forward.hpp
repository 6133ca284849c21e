// The eval protocol's forward op (docs/run-it.md): a checkpoint's causal LM on tokens or byte-level text.
#pragma once

#include "cli/eval_weights.hpp"
#include "core/base/json_fields.hpp"
#include "core/base/json_writer.hpp"
#include "core/infer/passkey.hpp"

namespace rv::cli {

// {"op":"forward","file"|"index":PATH,"config"|"preset", "tokens":[ids] | "text":"...", optional "positions",
//  "rope_scaling" (an object or "none"), "rope" ("apply" | "drop"), "outputs" (nll, logits, attention, hidden,
//  attention_by_distance, sink, qk_pair_norms)} -> {"nll":[T-1], and each output asked for}
std::optional<Error> op_forward(FieldReader& r, JsonWriter& w);
// The same on a checkpoint already open (the request's "file", "index", "config" and "preset" are not read).
std::optional<Error> forward_document(FieldReader& r, ModelCheckpoint& m, JsonWriter& w);
// Its fields checked as forward_document checks them, without a checkpoint ("text" is not encoded): run-export.
std::optional<Error> check_forward_request(FieldReader& r);

// What a pass and a bench share: "threads", "rope" ("apply" | "drop"), "rope_scaling" (an object or "none").
std::optional<Error> read_pass_options(FieldReader& r, ForwardOptions& o);
// Text to ids (`special`: apply the tokenizer's post-processor): through "tokenizer" (a tokenizer.json), else the one
// that came with the checkpoint, or as UTF-8 bytes for a byte-level model (vocab_size 256); BadRequest for another
// model without a tokenizer.
using Encoder = std::function<Expected<std::vector<long long>>(std::string_view text, bool special)>;
Expected<Encoder> text_encoder(FieldReader& r, ModelCheckpoint& m);

}  // namespace rv::cli
