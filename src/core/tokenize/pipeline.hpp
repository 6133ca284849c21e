// The steps of encoding and decoding (internal to core/tokenize): each a function of typed components, in the order
// tokenizers.js applies them (tokenizer.cpp strings them together).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/tokenize/tokenizer.hpp"

namespace rv::tokenize {

// GPT-2's byte <-> printable character table (bytes_to_unicode): byte b is shown as byte_char(b).
char32_t byte_char(unsigned char b);
int char_byte(char32_t c);  // -1 for a character that stands for no byte

// Every match of re replaced by content (String.prototype.replaceAll with a global RegExp).
std::u32string replace_all(const Regex& re, std::u32string_view text, std::u32string_view content);
// JavaScript's trimStart / trimEnd (its \s: White_Space without U+0085, with U+FEFF).
std::u32string trim_start(std::u32string_view s);
std::u32string trim_end(std::u32string_view s);

std::u32string normalize(const std::vector<Normalizer>& normalizers, std::u32string text);
// One section of text (between added tokens) -> pre-tokens; section_index is Metaspace's "first".
std::vector<std::u32string> pre_tokenize(const std::vector<PreTokenizer>& pre_tokenizers, std::u32string text,
                                         std::size_t section_index);
// A word's BPE tokens (after byte_fallback and unk_token) by the word, kept for one encode: a text repeats its words,
// and a word's tokens depend on the word alone (the Rust tokenizers cache them too).
using BpeCache = std::unordered_map<std::u32string, std::vector<std::string>>;
// Pre-tokens -> BPE tokens, appended to out, with byte_fallback, unk_token and fuse_unk over them all.
void bpe_tokens(const BpeModel& model, const std::vector<std::u32string>& words, std::vector<std::string>& out,
                BpeCache& cache);
// Tokens -> text through the decoders (or joined by spaces when there are none).
std::string decode_tokens(const Tokenizer& t, std::vector<std::string> tokens);

}  // namespace rv::tokenize
