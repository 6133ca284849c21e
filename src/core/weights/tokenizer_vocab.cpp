// tokenizer.json's vocabulary: word <-> token id (core/weights/tokenizer_vocab.hpp).
#include "core/weights/tokenizer_vocab.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/base/json_value.hpp"

namespace rv {
namespace {

constexpr const char* kByteLevelSpace = "\xC4\xA0";       // 'Ġ', U+0120
constexpr const char* kSentencePieceSpace = "\xE2\x96\x81";  // '▁', U+2581
constexpr long long kMaxVocabId = 1LL << 24;                  // ids past this are not a vocabulary's

bool whole(const JsonValue& v) {
  return v.kind == JsonValue::Kind::Number && std::isfinite(v.number) && v.number == std::floor(v.number);
}

}  // namespace

Expected<TokenVocab> parse_tokenizer_vocab(std::string_view json) {
  Expected<JsonValue> doc = parse_json(json, kMaxTokenizerBytes);
  if (!doc) return bad_request("tokenizer.json: " + doc.error().message);
  const JsonValue* model = doc->find("model");
  const JsonValue* vocab = model ? model->find("vocab") : nullptr;
  if (!vocab) return bad_request("tokenizer.json has no model.vocab");
  TokenVocab out;
  const auto add = [&](const std::string& word, double id) -> std::optional<Error> {
    if (id < 0 || id >= double(kMaxVocabId))
      return Error{"BadRequest", "tokenizer.json: model.vocab gives '" + word + "' the id " + std::to_string(id)};
    const long long i = (long long)id;
    if ((long long)out.words.size() <= i) out.words.resize(std::size_t(i + 1));
    out.words[std::size_t(i)] = word;
    out.by_word.push_back(int(i));
    return std::nullopt;
  };
  if (vocab->kind == JsonValue::Kind::Object) {
    out.by_word.reserve(vocab->object.size());
    for (const auto& [word, id] : vocab->object) {
      if (!whole(id)) return bad_request("tokenizer.json: model.vocab's '" + word + "' is not a whole-number id");
      if (auto e = add(word, id.number)) return *e;
    }
  } else if (vocab->kind == JsonValue::Kind::Array) {
    for (std::size_t i = 0; i < vocab->array.size(); ++i) {
      const JsonValue& entry = vocab->array[i];
      const JsonValue* word = entry.kind == JsonValue::Kind::Array && !entry.array.empty() ? &entry.array[0] : nullptr;
      if (!word || word->kind != JsonValue::Kind::String)
        return bad_request("tokenizer.json: model.vocab[" + std::to_string(i) + "] is not [word, score]");
      if (auto e = add(word->string, double(i))) return *e;
    }
  } else {
    return bad_request("tokenizer.json: model.vocab is neither an object nor an array");
  }
  // by word, then by id: a word given twice (a malformed vocabulary) finds its first id; ids given twice keep the last
  // word
  const std::vector<std::string>& w = out.words;
  out.by_word.erase(
      std::remove_if(out.by_word.begin(), out.by_word.end(), [&](int i) { return w[std::size_t(i)].empty(); }),
      out.by_word.end());
  std::sort(out.by_word.begin(), out.by_word.end(), [&](int a, int b) {
    return w[std::size_t(a)] != w[std::size_t(b)] ? w[std::size_t(a)] < w[std::size_t(b)] : a < b;
  });
  out.by_word.erase(std::unique(out.by_word.begin(), out.by_word.end()), out.by_word.end());
  return out;
}

Expected<long long> token_id(const TokenVocab& v, std::string_view word) {
  std::vector<std::string> tried{std::string(word)};
  if (!word.empty() && word.front() == ' ') {
    tried.push_back(kByteLevelSpace + std::string(word.substr(1)));
    tried.push_back(kSentencePieceSpace + std::string(word.substr(1)));
  }
  for (const std::string& w : tried) {
    const auto it = std::lower_bound(v.by_word.begin(), v.by_word.end(), w,
                                     [&](int id, const std::string& word) { return v.words[std::size_t(id)] < word; });
    if (it != v.by_word.end() && v.words[std::size_t(*it)] == w) return (long long)*it;
  }
  std::string names;
  for (const std::string& w : tried) names += (names.empty() ? "'" : ", '") + w + "'";
  return bad_request("'" + std::string(word) + "' is not in tokenizer.json's vocabulary (looked up " + names + ")");
}

}  // namespace rv
