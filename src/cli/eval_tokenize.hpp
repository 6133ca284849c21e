// The eval protocol's tokenizer ops over core/tokenize (docs/tokenizer.md): a Hugging Face tokenizer.json's encode and
// decode, byte for byte as tokenizers.js gives them.
#pragma once

#include "cli/request.hpp"
#include "core/tokenize/tokenizer.hpp"

namespace rv::cli {

// "tokenizer": a tokenizer.json's path (or its folder), read and parsed; BadRequest naming the path or the problem.
Expected<tokenize::Tokenizer> request_tokenizer(Request& r);

// {"op":"tokenize","tokenizer":PATH,"text":"...", optional "add_special_tokens":false} -> {"ids":[...],"tokens":[...]}
Expected<json> op_tokenize(Request& r);
// {"op":"detokenize","tokenizer":PATH,"ids":[...]} -> {"text":"..."}
Expected<json> op_detokenize(Request& r);

}  // namespace rv::cli
