// libFuzzer target: a tokenizer.json through parse_tokenizer, then encode and decode. The bytes before the first NUL
// are the tokenizer.json, the bytes after it the text to encode (no NUL: a fixed sample text). Refusals are
// BadRequests about tokenizer.json; an accepted tokenizer encodes with and without its special tokens (as many tokens
// as ids, the specials only added), and decodes those ids and tokens of its vocabulary. Never a crash or a hang.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/tokenize/tokenizer.hpp"
#include "fuzz_check.hpp"

namespace {

namespace tk = rv::tokenize;

// Accents (precomposed and combining), CJK, an emoji with joiners, digits, CRLF, a tab and an invalid UTF-8 byte.
constexpr std::string_view kSample =
    "Caf\xC3\xA9 nai\xCC\x88ve \xE4\xBD\xA0\xE5\xA5\xBD \xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9 12345\r\n\tx\xFF";

// Ids without the specials (model.vocab and added tokens) always name a token: their decode succeeds. The specials'
// ids come from the post-processor's own lists and may name none, which decode refuses by the first such id.
void check_decode(const tk::Tokenizer& t, const std::vector<long long>& ids, bool all_named) {
  const rv::Expected<std::string> text = tk::decode(t, ids);
  if (text) return;
  RV_FUZZ_CHECK(!all_named);
  RV_FUZZ_CHECK(text.error().type == "BadRequest" &&
                text.error().message.find("is no token's id") != std::string::npos);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view json = input.substr(0, nul);
  const std::string_view text = nul == std::string_view::npos ? kSample : input.substr(nul + 1);
  const rv::Expected<tk::Tokenizer> t = tk::parse_tokenizer(json);
  if (!t) {
    RV_FUZZ_CHECK(t.error().type == "BadRequest" && t.error().message.rfind("tokenizer.json", 0) == 0);
    return 0;
  }
  const tk::Encoding plain = tk::encode(*t, text, false);
  const tk::Encoding special = tk::encode(*t, text, true);
  RV_FUZZ_CHECK(plain.ids.size() == plain.tokens.size());
  RV_FUZZ_CHECK(special.ids.size() == special.tokens.size());
  RV_FUZZ_CHECK(special.ids.size() >= plain.ids.size());
  if (t->post_processors.empty()) RV_FUZZ_CHECK(special.ids == plain.ids && special.tokens == plain.tokens);
  for (const long long id : plain.ids) RV_FUZZ_CHECK(t->id_to_token.count(id) == 1);
  check_decode(*t, plain.ids, true);
  check_decode(*t, special.ids, false);

  // The decoders on any sequence of the vocabulary's tokens (ByteFallback's partial bytes, Strip, Metaspace): each
  // byte of the text picks one, at most 64.
  if (t->id_to_token.empty()) return 0;
  std::vector<long long> vocab;
  for (const auto& entry : t->id_to_token) vocab.push_back(entry.first);
  std::sort(vocab.begin(), vocab.end());
  std::vector<long long> picked;
  for (std::size_t i = 0; i < text.size() && i < 64; ++i)
    picked.push_back(vocab[static_cast<unsigned char>(text[i]) % vocab.size()]);
  check_decode(*t, picked, true);
  return 0;
}
