// encode (tokenizer.hpp): added tokens split out of the raw text, then out of the normalized text, then the
// pre-tokenizers and BPE per section, ids, and the post-processor, as tokenizers.js's encode_text runs them.
#include <map>
#include <unordered_map>

#include "core/tokenize/pipeline.hpp"
#include "core/tokenize/unicode.hpp"

namespace rv::tokenize {
namespace {

using AddedMap = std::map<std::u32string, const AddedToken*>;

// Leftmost-longest matches of the contents in text: the pieces between them and the matches, none empty.
std::vector<std::u32string> split_out(const std::vector<std::u32string>& contents, const std::u32string& text) {
  std::unordered_map<char32_t, std::vector<const std::u32string*>> by_first;
  for (const std::u32string& c : contents) by_first[c[0]].push_back(&c);
  std::vector<std::u32string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::u32string* best = nullptr;
    const auto it = by_first.find(text[i]);
    if (it != by_first.end())
      for (const std::u32string* c : it->second)
        if ((!best || c->size() > best->size()) && text.compare(i, c->size(), *c) == 0) best = c;
    if (!best) {
      ++i;
      continue;
    }
    if (i > start) out.push_back(text.substr(start, i - start));
    out.push_back(*best);
    i += best->size();
    start = i;
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

// An added token's lstrip / rstrip trims the whitespace of the pieces beside it.
void strip_beside(const AddedMap& added, std::vector<std::u32string>& pieces) {
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const auto it = added.find(pieces[i]);
    if (it == added.end()) continue;
    if (it->second->lstrip && i > 0) pieces[i - 1] = trim_end(pieces[i - 1]);
    if (it->second->rstrip && i + 1 < pieces.size()) pieces[i + 1] = trim_start(pieces[i + 1]);
  }
}

long long token_id(const Tokenizer& t, const AddedMap& added, const std::string& token) {
  const auto a = added.find(unicode::decode_utf8(token));
  if (a != added.end()) return a->second->id;
  const auto v = t.model.vocab.find(token);
  return v != t.model.vocab.end() ? v->second : t.model.vocab.at(*t.model.unk_token);
}

}  // namespace

Encoding encode(const Tokenizer& t, std::string_view text, bool add_special_tokens) {
  AddedMap added;
  std::vector<std::u32string> raw, normalized;  // matched before, or after, the normalizers
  for (const AddedToken& a : t.added_tokens) {
    const std::u32string content = unicode::decode_utf8(a.content);
    added[content] = &a;
    if (a.normalized && !t.normalizers.empty()) {
      normalized.push_back(normalize(t.normalizers, content));
      added[normalized.back()] = &a;
      if (normalized.back().empty()) normalized.pop_back();
    } else {
      raw.push_back(content);
    }
  }
  std::vector<std::string> tokens;
  BpeCache cache;
  std::vector<std::u32string> sections = split_out(raw, unicode::decode_utf8(text));
  strip_beside(added, sections);
  for (std::size_t index = 0; index < sections.size(); ++index) {
    if (sections[index].empty()) continue;
    if (added.count(sections[index])) {
      tokens.push_back(unicode::encode_utf8(sections[index]));
      continue;
    }
    const std::u32string norm = normalize(t.normalizers, sections[index]);
    if (norm.empty()) continue;
    std::vector<std::u32string> parts = split_out(normalized, norm);
    strip_beside(added, parts);
    for (std::u32string& part : parts) {
      if (part.empty()) continue;
      if (added.count(part))
        tokens.push_back(unicode::encode_utf8(part));
      else
        bpe_tokens(t.model, pre_tokenize(t.pre_tokenizers, std::move(part), index), tokens, cache);
    }
  }
  Encoding e;
  for (std::string& token : tokens) {
    e.ids.push_back(token_id(t, added, token));
    e.tokens.push_back(std::move(token));
  }
  for (const PostProcessor& p : t.post_processors) {
    Encoding with;
    for (const TemplatePiece& piece : p.single) {
      if (piece.sequence) {
        with.ids.insert(with.ids.end(), e.ids.begin(), e.ids.end());
        with.tokens.insert(with.tokens.end(), e.tokens.begin(), e.tokens.end());
      } else if (add_special_tokens) {
        with.ids.insert(with.ids.end(), piece.ids.begin(), piece.ids.end());
        with.tokens.insert(with.tokens.end(), piece.tokens.begin(), piece.tokens.end());
      }
    }
    e = std::move(with);
  }
  return e;
}

}  // namespace rv::tokenize
