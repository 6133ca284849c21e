// A Hugging Face tokenizer.json, parsed into typed components, and its encode and decode (docs/tokenizer.md).
// Encoding follows tokenizers.js (@huggingface/tokenizers, the reference the tests hold it to, byte for byte):
// added tokens split out first, then the normalizers, the pre-tokenizers, the BPE model and the post-processor.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "core/base/error.hpp"
#include "core/tokenize/normalize.hpp"
#include "core/tokenize/regex.hpp"

namespace rv::tokenize {

constexpr std::size_t kMaxTokenizerJsonBytes = 32u << 20;  // Llama 3's tokenizer.json is 9 MB

// Sequences are flattened into lists as they are read: applying a Sequence is applying its members in turn.
struct UnicodeNormalizer {
  unicode::Form form = unicode::Form::NFC;
};
struct PrependNormalizer {
  std::u32string prepend;
};
struct ReplaceNormalizer {
  Regex pattern;
  std::u32string content;
};
using Normalizer = std::variant<UnicodeNormalizer, PrependNormalizer, ReplaceNormalizer>;

enum class SplitBehavior { Isolated, Removed, MergedWithPrevious, MergedWithNext, Contiguous };
struct ByteLevelPreTokenizer {
  bool add_prefix_space = false, use_regex = true;
  Regex pattern;  // GPT-2's, as JavaScript reads it (tokenizers.js runs it as a native RegExp)
};
struct SplitPreTokenizer {
  Regex pattern;
  SplitBehavior behavior = SplitBehavior::Isolated;
  bool invert = false;
};
struct DigitsPreTokenizer {
  bool individual_digits = false;
};
enum class PrependScheme { Always, First, Never };
struct MetaspacePreTokenizer {
  char32_t replacement = 0x2581;
  PrependScheme prepend_scheme = PrependScheme::Always;
  bool split = true;
};
using PreTokenizer = std::variant<ByteLevelPreTokenizer, SplitPreTokenizer, DigitsPreTokenizer, MetaspacePreTokenizer>;

struct BpeModel {
  std::unordered_map<std::string, long long> vocab;  // model.vocab and the added tokens' contents
  std::unordered_map<std::string, int> pieces;       // every string a merge names or makes -> its index
  std::unordered_map<unsigned long long, std::pair<int, int>> merges;  // (left << 32 | right) -> (rank, result)
  std::optional<std::string> unk_token;
  bool fuse_unk = false, byte_fallback = false, ignore_merges = false;
};

struct AddedToken {
  std::string content;
  long long id = 0;
  bool special = false, normalized = false, lstrip = false, rstrip = false, single_word = false;
};

// A TemplateProcessing piece: the sequence, or a special token's tokens and ids.
struct TemplatePiece {
  bool sequence = false;
  std::vector<std::string> tokens;
  std::vector<long long> ids;
};
struct PostProcessor {
  std::vector<TemplatePiece> single;
};  // TemplateProcessing, Bert/RobertaProcessing

struct ByteLevelDecoder {};
struct MetaspaceDecoder {
  char32_t replacement = 0x2581;
  bool strip_first_space = true;
};
struct ByteFallbackDecoder {};
struct FuseDecoder {};
struct StripDecoder {
  char32_t content = ' ';
  int start = 0, stop = 0;
};
struct ReplaceDecoder {
  Regex pattern;
  std::u32string content;
};
using Decoder =
    std::variant<ByteLevelDecoder, MetaspaceDecoder, ByteFallbackDecoder, FuseDecoder, StripDecoder, ReplaceDecoder>;

struct Tokenizer {
  std::vector<AddedToken> added_tokens;
  std::vector<Normalizer> normalizers;
  std::vector<PreTokenizer> pre_tokenizers;
  BpeModel model;
  std::vector<PostProcessor> post_processors;
  std::optional<std::vector<Decoder>> decoders;            // none: tokens joined with spaces
  std::unordered_map<long long, std::string> id_to_token;  // model.vocab's ids, then the added tokens'
};

struct Encoding {
  std::vector<long long> ids;
  std::vector<std::string> tokens;
};

// tokenizer.json's text -> a Tokenizer. BadRequest naming the field, or "the pre_tokenizer type \"Whitespace\" is
// not supported (...)" naming an unsupported component by its type, or quoting a regex the engine does not handle.
Expected<Tokenizer> parse_tokenizer(std::string_view json_text);

// Text (UTF-8; invalid bytes read as U+FFFD, as TextDecoder decodes them) -> tokens and ids. add_special_tokens
// applies the post-processor (TemplateProcessing's special tokens).
Encoding encode(const Tokenizer& t, std::string_view text, bool add_special_tokens = false);

// Ids -> text through the decoders (UTF-8; byte sequences that are not UTF-8 become U+FFFD as TextDecoder makes
// them). BadRequest naming the first id that no token has.
Expected<std::string> decode(const Tokenizer& t, const std::vector<long long>& ids);

}  // namespace rv::tokenize
