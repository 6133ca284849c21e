// A checkpoint's tokenizer.json in the app (docs/tokenizer.md): parsed by core's tokenizer, checked against the
// model's vocabulary, and used for the score curve's word fields and Run it's text.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"
#include "core/tokenize/tokenizer.hpp"

namespace rv {

struct Params;

constexpr std::size_t kMaxTokenizerBytes = tokenize::kMaxTokenizerJsonBytes;

struct LoadedTokenizer {
  tokenize::Tokenizer tokenizer;
  std::string name;          // "tokenizer.json", or the file's name as it was given
  long long ids = 0;         // its largest id + 1: the rows of a model's embedding it needs
  std::uint64_t serial = 0;  // a new one per load (what names tokens through it rebuilds)
};

// tokenizer.json's text (`bytes`: the file's real size; over kMaxTokenizerBytes is refused). BadRequest naming `name`
// and, for a component outside the list core reads, the component.
Expected<std::shared_ptr<const LoadedTokenizer>> parse_loaded_tokenizer(std::string_view text, std::uint64_t bytes,
                                                                        const std::string& name);

// "" when every id fits a model of `vocab` rows, else why not: "tokenizer.json gives ids up to 1,199; the model's
// embedding has 256 rows".
std::string tokenizer_fit(const LoadedTokenizer& t, long long vocab);

// A word typed into a token field, through the tokenizer (no special tokens): its first token's id, how many tokens it
// is and their strings ("'Ġhel' 'lo'"). BadRequest when it encodes to no token.
struct WordTokens {
  long long id = 0;
  std::size_t count = 0;
  std::string pieces;
};
Expected<WordTokens> word_tokens(const LoadedTokenizer& t, std::string_view word);

// The token's string as the vocabulary spells it ("Ġthe"), or null for an id it lacks.
const std::string* token_string(const LoadedTokenizer& t, long long id);

// The loaded weights take this tokenizer (the weights stay the same load: their serial is kept); false with a note
// when no checkpoint is loaded. Notes what it loaded and, when its ids do not fit the embedding, that first.
bool attach_tokenizer(Params& p, std::shared_ptr<const LoadedTokenizer> t, std::vector<std::string>& notes);

// A tokenizer.json on disk (the desktop's --tokenizer, a drop) read, parsed and attached; false with a note naming the
// file when any step refuses (the weights keep the tokenizer they had).
bool load_tokenizer_path(Params& p, const std::string& path, std::vector<std::string>& notes);

// The tokenizer of the loaded weights, or null.
const LoadedTokenizer* loaded_tokenizer(const Params& p);

}  // namespace rv
