// The text Run it reads (the held-out sample, or a text given by paste, drop or --text) and its tokens through the
// checkpoint's tokenizer.json, else its bytes; with the token strip's labels, built once per text and tokenizer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"
#include "core/infer/passkey.hpp"
#include "core/tokenize/tokenizer.hpp"

namespace rv {

struct App;
struct LoadedTokenizer;

constexpr std::size_t kMaxRunTextBytes = 4u << 20;  // 4 MiB: about a million tokens, far more than a run reads
constexpr std::size_t kStripTokens = 400;           // the tokens the strip shows (the text's first)

// The text itself: `text` empty means the held-out sample.
struct RunText {
  std::string text, name;
  std::uint64_t serial = 0;  // changes with every text given
};

// The text's tokens for the loaded weights (rebuilt when the weights, their tokenizer or the text change).
struct RunTokens {
  std::uint64_t weights = ~0ull, tokenizer = ~0ull, text = ~0ull;  // the serials they were made for
  std::vector<long long> ids;
  std::string error;    // why this text cannot run on these weights, or ""
  std::string summary;  // "16,384 bytes, 4,210 tokens through tokenizer.json (3.89 bytes a token)"
  // The strip: the first kStripTokens tokens' labels (a space as '·', a newline as '↵'), ids and hovers.
  std::vector<std::string> labels, ids_text, hovers;
};

// The ids of `text` for a model of `vocab` embedding rows (0: unknown, not checked): through `t` without special
// tokens (as the tokenize op), else its bytes when the model reads bytes (vocab 256). BadRequest naming what is
// missing or what does not fit.
Expected<std::vector<long long>> run_token_ids(std::string_view text, const LoadedTokenizer* t, long long vocab);
// The same encoding as a function (the bench's prompts go through it, in the page's workers too): through `t` when
// given (its ids not checked against `vocab`), else bytes, or BadRequest when the model does not read bytes.
TextEncoder run_encoder(std::shared_ptr<const tokenize::Tokenizer> t, long long vocab);

// Run it reads `text` (named `name`: "pasted text", a file's name) from now on; refused with a note when it is empty
// or over kMaxRunTextBytes (the text before stays). Invalid UTF-8 reads as U+FFFD through a tokenizer (as Hugging
// Face's TextDecoder does), as its bytes for a byte-level model.
bool set_run_text(App& app, std::string text, const std::string& name, std::vector<std::string>& notes);
// A text file on disk (the desktop's --text, a dropped .txt) as Run it's text: set_run_text with its name, or a note
// when it cannot be read.
bool load_run_text_path(App& app, const std::string& path, std::vector<std::string>& notes);
// Back to the held-out sample.
void clear_run_text(App& app);
// The text's tokens for the loaded weights, rebuilt only when something they depend on changed.
const RunTokens& run_tokens(App& app);
// What the text is called: "the held-out sample (heldout.txt's first 16 KB, which the demo models never saw)".
const std::string& run_text_name(const App& app);

}  // namespace rv
