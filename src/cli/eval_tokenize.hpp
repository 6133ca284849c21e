// The eval protocol's tokenizer ops over core/tokenize (docs/tokenizer.md): a Hugging Face tokenizer.json's encode and
// decode, byte for byte as tokenizers.js gives them.
#pragma once

#include "core/base/json_fields.hpp"
#include "core/base/json_writer.hpp"
#include "core/tokenize/tokenizer.hpp"

namespace rv::cli {

// "tokenizer": a tokenizer.json's path (or its folder), read and parsed; BadRequest naming the path or the problem.
Expected<tokenize::Tokenizer> request_tokenizer(FieldReader& r);

// {"op":"tokenize","tokenizer":PATH,"text":"...", optional "add_special_tokens":false} -> {"ids":[...],"tokens":[...]}
std::optional<Error> op_tokenize(FieldReader& r, JsonWriter& w);
// {"op":"detokenize","tokenizer":PATH,"ids":[...]} -> {"text":"..."}
std::optional<Error> op_detokenize(FieldReader& r, JsonWriter& w);

}  // namespace rv::cli
