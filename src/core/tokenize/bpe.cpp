// The BPE model (pipeline.hpp's bpe_tokens): merges by a priority queue, O(n log n) in a word's length; the lowest
// rank first, and of equal ranks the leftmost, as tokenizers.js (and the Rust tokenizers) merge.
#include <queue>
#include <tuple>

#include "core/tokenize/pipeline.hpp"
#include "core/tokenize/unicode.hpp"

namespace rv::tokenize {
namespace {

struct Symbol {
  std::size_t begin, end;  // code points of the word
  int piece;               // BpeModel::pieces index, -1 when no merge names it
  int prev, next;          // neighbours, -1 at the ends
  unsigned version = 0;    // bumped when the symbol grows; a queued pair remembers both versions
  bool alive = true;
};

struct Candidate {
  int rank;
  std::size_t begin;
  int left, right;
  unsigned left_version, right_version;
  bool operator>(const Candidate& o) const { return std::tie(rank, begin) > std::tie(o.rank, o.begin); }
};

const std::pair<int, int>* find_merge(const BpeModel& m, int left, int right) {
  if (left < 0 || right < 0) return nullptr;
  const auto it = m.merges.find((unsigned long long)left << 32 | unsigned(right));
  return it == m.merges.end() ? nullptr : &it->second;
}

// The word's symbols after every merge that applies, as UTF-8 strings.
std::vector<std::string> merge(const BpeModel& m, const std::u32string& word) {
  std::vector<Symbol> s;
  for (std::size_t i = 0; i < word.size(); ++i) {
    const auto it = m.pieces.find(unicode::encode_utf8(std::u32string_view(word).substr(i, 1)));
    s.push_back(Symbol{i, i + 1, it == m.pieces.end() ? -1 : it->second, int(i) - 1, int(i + 1)});
  }
  if (!s.empty()) s.back().next = -1;
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
  const auto offer = [&](int left) {
    if (left < 0 || s[std::size_t(left)].next < 0) return;
    const Symbol &a = s[std::size_t(left)], &b = s[std::size_t(a.next)];
    if (const auto* found = find_merge(m, a.piece, b.piece))
      queue.push(Candidate{found->first, a.begin, left, a.next, a.version, b.version});
  };
  for (std::size_t i = 0; i + 1 < s.size(); ++i) offer(int(i));
  while (!queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    Symbol &a = s[std::size_t(c.left)], &b = s[std::size_t(c.right)];
    if (!a.alive || !b.alive || a.next != c.right || a.version != c.left_version || b.version != c.right_version)
      continue;  // one of the two has merged since
    a.piece = find_merge(m, a.piece, b.piece)->second;
    a.end = b.end, a.next = b.next, ++a.version;
    b.alive = false;
    if (b.next >= 0) s[std::size_t(b.next)].prev = c.left;
    offer(a.prev);
    offer(c.left);
  }
  std::vector<std::string> out;
  for (const Symbol& x : s)
    if (x.alive) out.push_back(unicode::encode_utf8(std::u32string_view(word).substr(x.begin, x.end - x.begin)));
  return out;
}

// One word's tokens: merged, each kept when the vocabulary has it, else its bytes (byte_fallback, all of them in the
// vocabulary) or unk_token (dropped without one, as tokenizers.js does).
std::vector<std::string> word_tokens(const BpeModel& m, const std::u32string& word) {
  std::vector<std::string> out;
  if (m.ignore_merges && m.vocab.count(unicode::encode_utf8(word))) return {unicode::encode_utf8(word)};
  const auto unk = [&] {
    if (m.unk_token) out.push_back(*m.unk_token);
  };
  for (std::string& token : merge(m, word)) {
    if (m.vocab.count(token)) {
      out.push_back(std::move(token));
      continue;
    }
    if (!m.byte_fallback) {
      unk();
      continue;
    }
    std::vector<std::string> bytes;
    static const char kHex[] = "0123456789ABCDEF";
    for (unsigned char b : token) bytes.push_back(std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">");
    bool all = true;
    for (const std::string& b : bytes) all = all && m.vocab.count(b);
    if (!all)
      unk();
    else
      out.insert(out.end(), bytes.begin(), bytes.end());
  }
  return out;
}

}  // namespace

void bpe_tokens(const BpeModel& m, const std::vector<std::u32string>& words, std::vector<std::string>& out,
                BpeCache& cache) {
  const std::size_t first = out.size();
  for (const std::u32string& word : words) {
    if (word.empty()) continue;
    auto it = cache.find(word);
    if (it == cache.end()) {
      if (cache.size() >= 1u << 16) cache.clear();  // a bound on the memory a huge text's distinct words take
      it = cache.emplace(word, word_tokens(m, word)).first;
    }
    out.insert(out.end(), it->second.begin(), it->second.end());
  }
  if (!m.fuse_unk || !m.unk_token) return;
  // fuse_unk over the section's tokens: an unknown token right after another is dropped
  const long long unk_id = m.vocab.at(*m.unk_token);
  std::size_t kept = first;
  for (std::size_t i = first; i < out.size(); ++i) {
    const auto id = [&](const std::string& t) { return m.vocab.at(t); };
    if (kept > first && id(out[i]) == unk_id && id(out[kept - 1]) == unk_id) continue;
    if (kept != i) out[kept] = std::move(out[i]);
    ++kept;
  }
  out.resize(kept);
}

}  // namespace rv::tokenize
