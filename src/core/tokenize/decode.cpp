// decode (tokenizer.hpp): ids -> tokens -> the decoders in turn over the list of strings, as tokenizers.js's
// decode_chain runs them; GPT-2's byte table for ByteLevel.
#include <algorithm>
#include <array>
#include <functional>

#include "core/base/utf8.hpp"
#include "core/tokenize/pipeline.hpp"
#include "core/tokenize/unicode.hpp"

namespace rv::tokenize {
namespace {

using Strings = std::vector<std::string>;

// bytes_to_unicode: the printable bytes stand for themselves, the other 68 for U+0100 onwards in byte order.
constexpr std::array<char32_t, 256> byte_table() {
  std::array<char32_t, 256> t{};
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    t[std::size_t(b)] = printable ? char32_t(b) : next++;
  }
  return t;
}
constexpr std::array<char32_t, 256> kByteChars = byte_table();

constexpr std::array<short, 0x144> char_table() {  // the characters all lie below U+0144
  std::array<short, 0x144> t{};
  for (short& b : t) b = -1;
  for (int b = 0; b < 256; ++b) t[kByteChars[std::size_t(b)]] = short(b);
  return t;
}
constexpr std::array<short, 0x144> kCharBytes = char_table();

// Bytes -> valid UTF-8, as TextDecoder reads them.
std::string utf8_text(const std::string& bytes) {
  return unicode::encode_utf8(unicode::decode_utf8(bytes));
}

// Runs of tokens that are not added tokens: their characters back to bytes, read as UTF-8.
Strings decode_byte_level(const Tokenizer& t, const Strings& tokens) {
  Strings out;
  std::string run;
  bool open = false;
  for (const std::string& token : tokens) {
    const bool added = std::any_of(t.added_tokens.begin(), t.added_tokens.end(),
                                   [&](const AddedToken& a) { return a.content == token; });
    if (added) {
      if (open) out.push_back(utf8_text(run));
      out.push_back(token), run.clear(), open = false;
      continue;
    }
    for (char32_t c : unicode::decode_utf8(token)) {
      const int b = char_byte(c);
      if (b >= 0)
        run += char(b);
      else
        append_utf8(run, c);  // not a byte's character: kept as it is, as the Rust decoder does
    }
    open = true;
  }
  if (open) out.push_back(utf8_text(run));
  return out;
}

// tokenizers.js reads ByteFallback's bytes with a TextDecoder that drops a leading byte order mark (ByteLevel's
// keeps it): so do we, for the same text.
std::string bom_dropped(std::string text) {
  return text.rfind("\xEF\xBB\xBF", 0) == 0 ? text.substr(3) : text;
}

// "<0xE2>" -> 0xE2; -1 for any other token.
int byte_token(const std::string& token) {
  const auto hex = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
  };
  if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>') return -1;
  const int hi = hex(token[3]), lo = hex(token[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

Strings decode_byte_fallback(const Strings& tokens) {
  Strings out;
  std::string bytes;
  for (const std::string& token : tokens) {
    const int b = byte_token(token);
    if (b >= 0) {
      bytes += char(b);
      continue;
    }
    if (!bytes.empty()) out.push_back(bom_dropped(utf8_text(bytes))), bytes.clear();
    out.push_back(token);
  }
  if (!bytes.empty()) out.push_back(bom_dropped(utf8_text(bytes)));
  return out;
}

Strings each_token(const Strings& tokens, const std::function<std::u32string(std::u32string, std::size_t)>& f) {
  Strings out;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    out.push_back(unicode::encode_utf8(f(unicode::decode_utf8(tokens[i]), i)));
  return out;
}

Strings apply(const Tokenizer& t, const Decoder& d, const Strings& tokens) {
  if (std::holds_alternative<ByteLevelDecoder>(d)) return decode_byte_level(t, tokens);
  if (std::holds_alternative<ByteFallbackDecoder>(d)) return decode_byte_fallback(tokens);
  if (std::holds_alternative<FuseDecoder>(d)) {
    std::string all;
    for (const std::string& s : tokens) all += s;
    return {all};
  }
  if (const auto* m = std::get_if<MetaspaceDecoder>(&d))
    return each_token(tokens, [&](std::u32string s, std::size_t i) {
      std::replace(s.begin(), s.end(), m->replacement, U' ');
      if (i == 0 && m->strip_first_space && !s.empty() && s[0] == ' ') s.erase(0, 1);
      return s;
    });
  if (const auto* st = std::get_if<StripDecoder>(&d))
    return each_token(tokens, [&](std::u32string s, std::size_t) {
      std::size_t begin = 0, end = s.size();
      while (begin < std::size_t(st->start) && begin < s.size() && s[begin] == st->content) ++begin;
      for (int i = 0; i < st->stop && end > 0 && s[end - 1] == st->content; ++i) --end;
      return end > begin ? s.substr(begin, end - begin) : std::u32string();
    });
  const auto& r = std::get<ReplaceDecoder>(d);
  return each_token(tokens, [&](std::u32string s, std::size_t) { return replace_all(r.pattern, s, r.content); });
}

}  // namespace

char32_t byte_char(unsigned char b) {
  return kByteChars[b];
}

int char_byte(char32_t c) {
  return c < kCharBytes.size() ? kCharBytes[c] : -1;
}

std::string decode_tokens(const Tokenizer& t, std::vector<std::string> tokens) {
  std::string out;
  if (!t.decoders) {
    for (std::size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
    return out;
  }
  for (const Decoder& d : *t.decoders) tokens = apply(t, d, tokens);
  for (const std::string& s : tokens) out += s;
  return out;
}

Expected<std::string> decode(const Tokenizer& t, const std::vector<long long>& ids) {
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto it = t.id_to_token.find(ids[i]);
    if (it == t.id_to_token.end())
      return bad_request("ids[" + std::to_string(i) + "] = " + std::to_string(ids[i]) + " is no token's id");
    tokens.push_back(it->second);
  }
  return decode_tokens(t, std::move(tokens));
}

}  // namespace rv::tokenize
