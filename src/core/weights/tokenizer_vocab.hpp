// A checkpoint's tokenizer.json vocabulary (model.vocab of Hugging Face tokenizers): a word to its token id by exact
// match, and an id back to its word, for naming the tokens whose real q and k the app draws.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"

namespace rv {

constexpr std::size_t kMaxTokenizerBytes = 32u << 20;  // Llama 3's tokenizer.json is 9 MB

struct TokenVocab {
  std::vector<std::string> words;  // model.vocab by id ("" for an id the vocabulary skips)
  std::vector<int> by_word;        // the ids in the order of their words (a binary search finds a word)
  long long size() const { return (long long)words.size(); }
};

// model.vocab of tokenizer.json's text: an object {word: id} (BPE, WordPiece) or an array of [word, score] (Unigram,
// ids in order). A BadRequest naming what is missing or malformed.
Expected<TokenVocab> parse_tokenizer_vocab(std::string_view json);

// The id of `word` by exact match; a word written with a leading space is also looked up with that space spelled
// 'Ġ' (U+0120, GPT-2's byte-level BPE) and '▁' (U+2581, SentencePiece). A BadRequest naming the word and what was
// tried when none matches.
Expected<long long> token_id(const TokenVocab& v, std::string_view word);

}  // namespace rv
