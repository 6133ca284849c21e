// A checkpoint's tokenizer.json in the app: parse, fit against the model, words, attach
// (app/state/loaded_tokenizer.hpp).
#include "app/state/loaded_tokenizer.hpp"

#include <algorithm>

#include "app/state/state.hpp"
#include "app/state/weights.hpp"
#include "core/base/format.hpp"

namespace rv {

Expected<std::shared_ptr<const LoadedTokenizer>> parse_loaded_tokenizer(std::string_view text, std::uint64_t bytes,
                                                                        const std::string& name) {
  if (bytes > kMaxTokenizerBytes)
    return bad_request(name + ": " + format_count((long long)bytes) + " bytes is over the " +
                       format_count((long long)kMaxTokenizerBytes) + "-byte limit for a tokenizer.json");
  Expected<tokenize::Tokenizer> parsed = tokenize::parse_tokenizer(text);
  if (!parsed) return bad_request(name + ": " + parsed.error().message);
  static std::uint64_t serial = 0;
  auto t = std::make_shared<LoadedTokenizer>();
  t->tokenizer = std::move(*parsed);
  t->name = name;
  for (const auto& [id, token] : t->tokenizer.id_to_token) t->ids = std::max(t->ids, id + 1);
  t->serial = ++serial;
  return std::shared_ptr<const LoadedTokenizer>(std::move(t));
}

std::string tokenizer_fit(const LoadedTokenizer& t, long long vocab) {
  if (vocab <= 0 || t.ids <= vocab) return "";
  return t.name + " gives ids up to " + format_count(t.ids - 1) + "; the model's embedding has " + format_count(vocab) +
         " rows (ids 0.." + format_count(vocab - 1) +
         "): a tokenizer of another model, so text cannot run through it here";
}

Expected<WordTokens> word_tokens(const LoadedTokenizer& t, std::string_view word) {
  const tokenize::Encoding e = tokenize::encode(t.tokenizer, word);
  if (e.ids.empty()) return bad_request("'" + std::string(word) + "' is no token through " + t.name);
  WordTokens out;
  out.id = e.ids[0];
  out.count = e.ids.size();
  for (const std::string& token : e.tokens) out.pieces += (out.pieces.empty() ? "'" : " '") + token + "'";
  return out;
}

const std::string* token_string(const LoadedTokenizer& t, long long id) {
  const auto it = t.tokenizer.id_to_token.find(id);
  return it == t.tokenizer.id_to_token.end() ? nullptr : &it->second;
}

bool attach_tokenizer(Params& p, std::shared_ptr<const LoadedTokenizer> t, std::vector<std::string>& notes) {
  if (!p.weights) {
    notes.push_back(t->name +
                    ": no checkpoint is loaded; a tokenizer.json goes with the checkpoint it came with "
                    "(load that first, or drop both together)");
    return false;
  }
  auto w = std::make_shared<LoadedWeights>(*p.weights);
  w->tokenizer = std::move(t);
  p.weights = std::move(w);
  const LoadedTokenizer& l = *p.weights->tokenizer;
  const std::string fit = tokenizer_fit(l, p.weights->vocab);
  notes.push_back(fit.empty() ? "loaded " + l.name + " for " + p.weights->label + ": " +
                                    format_count((long long)l.tokenizer.id_to_token.size()) + " tokens"
                              : p.weights->label + ": " + fit);
  return true;
}

bool load_tokenizer_path(Params& p, const std::string& path, std::vector<std::string>& notes) {
  const std::string name = file_name(path);
  std::uint64_t bytes = 0;
  const std::optional<std::string> text = read_file_head(path, kMaxTokenizerBytes + 1, bytes);
  if (!text) {
    notes.push_back(name + ": cannot open " + path);
    return false;
  }
  Expected<std::shared_ptr<const LoadedTokenizer>> t = parse_loaded_tokenizer(*text, bytes, name);
  if (!t) {
    notes.push_back(t.error().message +
                    (p.weights && p.weights->tokenizer ? "; kept " + p.weights->tokenizer->name : std::string()));
    return false;
  }
  return attach_tokenizer(p, std::move(*t), notes);
}

const LoadedTokenizer* loaded_tokenizer(const Params& p) {
  return p.weights ? p.weights->tokenizer.get() : nullptr;
}

}  // namespace rv
