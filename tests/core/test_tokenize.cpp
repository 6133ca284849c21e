// core/tokenize: refusals (unsupported components by type name, regexes quoted), edge cases (empty text, a
// 10,000-character word, invalid UTF-8), Split's behaviours, normalization and the regex engine. Agreement with
// Hugging Face's JS tokenizer is tests/tokenizer/crosscheck.mjs's.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/base/json_value.hpp"
#include "core/tokenize/normalize.hpp"
#include "core/tokenize/pipeline.hpp"
#include "core/tokenize/tokenizer.hpp"
#include "core/tokenize/unicode.hpp"
#include "test_util.hpp"

using namespace rv;
using namespace rv::tokenize;

namespace {

std::string fixture_text(const std::string& name) {
  std::ifstream in(std::string(RV_FIXTURES_DIR) + "/tokenizers/" + name, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Tokenizer fixture(const std::string& name) {
  Expected<Tokenizer> t = parse_tokenizer(fixture_text(name + "/tokenizer.json"));
  REQUIRE_MESSAGE(t, (t ? "" : t.error().full()));
  return t.value();
}

// A minimal tokenizer.json around the given components (a three-letter vocabulary, no merges).
std::string minimal(const std::string& extra, const std::string& model = R"({"type":"BPE","vocab":{"a":0,"b":1,"c":2},
  "merges":[]})") {
  return R"({"model":)" + model + (extra.empty() ? "" : "," + extra) + "}";
}

std::string refusal(const std::string& json) {
  Expected<Tokenizer> t = parse_tokenizer(json);
  REQUIRE_FALSE(t);
  CHECK(t.error().type == "BadRequest");
  return t.error().message;
}

std::vector<std::string> pre_tokens(const std::string& pre_tokenizer, const std::string& text) {
  Expected<Tokenizer> t = parse_tokenizer(minimal(R"("pre_tokenizer":)" + pre_tokenizer));
  REQUIRE_MESSAGE(t, (t ? "" : t.error().full()));
  std::vector<std::string> out;
  for (const std::u32string& p : pre_tokenize(t->pre_tokenizers, unicode::decode_utf8(text), 0))
    out.push_back(unicode::encode_utf8(p));
  return out;
}

std::string nf(const std::string& text, unicode::Form form) {
  return unicode::encode_utf8(unicode::normalize(unicode::decode_utf8(text), form));
}

}  // namespace

TEST_CASE("tokenize: the six fixtures parse, and empty text has no tokens") {
  for (const char* name : {"gpt2_bytelevel", "llama2_spm_bytefallback", "llama3_split_bytelevel",
                           "mistral_metaspace_bytefallback", "qwen2_nfc_split_bytelevel", "smollm2_digits_bytelevel"}) {
    const Tokenizer t = fixture(name);
    CHECK(encode(t, "").ids.empty());
    CHECK(encode(t, "", true).tokens.empty());
    const Expected<std::string> none = decode(t, {});
    REQUIRE(none);
    CHECK(*none == "");
  }
}

TEST_CASE("tokenize: ids round-trip through decode, and an unknown id is refused") {
  const Tokenizer t = fixture("gpt2_bytelevel");
  const Encoding e = encode(t, "Hello world<|endoftext|>café");
  CHECK(e.tokens.back() == "©");
  CHECK(std::find(e.ids.begin(), e.ids.end(), 0) != e.ids.end());  // <|endoftext|> split out whole
  const Expected<std::string> text = decode(t, e.ids);
  REQUIRE(text);
  CHECK(*text == "Hello world<|endoftext|>café");
  const Expected<std::string> bad = decode(t, {5, 99999});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "ids[1] = 99999 is no token's id");
  CHECK_FALSE(decode(t, {-1}));
}

TEST_CASE("tokenize: a 10,000-character word merges (a priority queue, not a rescan per merge)") {
  const Tokenizer t = fixture("llama2_spm_bytefallback");  // no pre-tokenizer: the whole text is one word
  std::string word;
  for (int i = 0; i < 5000; ++i) word += "ab";
  const Encoding e = encode(t, word);
  CHECK(e.ids.size() < 10000);
  const Expected<std::string> back = decode(t, e.ids);
  REQUIRE(back);
  CHECK(*back == word);
  const Encoding spaces = encode(fixture("llama3_split_bytelevel"), std::string(10000, ' ') + "x");
  CHECK(spaces.tokens.size() > 1);
}

TEST_CASE("tokenize: invalid UTF-8 reads as TextDecoder reads it (tests/fixtures/tokenizers/invalid_utf8.json)") {
  const Expected<JsonValue> cases = parse_json(fixture_text("invalid_utf8.json"));
  REQUIRE(cases);
  const Tokenizer t = fixture("qwen2_nfc_split_bytelevel");
  int checked = 0;
  for (const JsonValue& c : cases->find("cases")->array) {
    const std::string hex = c.find("bytes_hex")->string, text = c.find("text")->string;
    std::string bytes;
    for (std::size_t i = 0; i < hex.size(); i += 2) bytes += char(std::stoi(hex.substr(i, 2), nullptr, 16));
    CHECK(unicode::encode_utf8(unicode::decode_utf8(bytes)) == text);
    CHECK(encode(t, bytes).ids == encode(t, text).ids);
    ++checked;
  }
  CHECK(checked >= 10);
}

TEST_CASE("tokenize: unsupported components are refused by their type name") {
  CHECK(refusal(minimal("", R"({"type":"WordPiece","vocab":{}})")) ==
        "tokenizer.json: the model type \"WordPiece\" is not supported (BPE)");
  CHECK(test::contains(refusal(minimal(R"("normalizer":{"type":"Lowercase"})")), "normalizer type \"Lowercase\""));
  CHECK(
      test::contains(refusal(minimal(R"("pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Whitespace"}]})")),
                     "pre_tokenizer type \"Whitespace\""));
  CHECK(test::contains(refusal(minimal(R"("decoder":{"type":"WordPiece","prefix":"##"})")),
                       "decoder type \"WordPiece\""));
  CHECK(test::contains(refusal(minimal(R"("post_processor":{"type":"Mystery"})")), "post_processor type \"Mystery\""));
  CHECK(test::contains(refusal("[1, 2"), "malformed JSON"));
  CHECK(refusal("[]") == "tokenizer.json must be a JSON object");
  CHECK(test::contains(refusal(minimal("", R"({"type":"BPE","vocab":{"a":0},"merges":[],"unk_token":"<unk>"})")),
                       "\"<unk>\" is not in the vocabulary"));
  CHECK(test::contains(refusal(minimal(R"("pre_tokenizer":{"type":"Split","pattern":{"Regex":"a"},"behavior":"Odd",
                                        "invert":false})")),
                       "must be Isolated, Removed"));
}

TEST_CASE("tokenize: a regex the engine does not handle is refused, quoted") {
  const std::string split =
      R"("pre_tokenizer":{"type":"Split","behavior":"Isolated","invert":false,"pattern":{"Regex":)";
  for (const char* regex : {R"("(?<=a)b")", R"("\\bword")", R"("(?:ab)+")", R"("a+?")", R"("^a")", R"("\\p{Greek}")",
                            R"("[a-")", R"("(a")", R"("\\w+")"}) {
    const std::string message = refusal(minimal(split + regex + "}}"));
    const std::string quoted = parse_json(regex)->string;
    CHECK_MESSAGE(test::contains(message, "the regex \"" + quoted + "\" is not supported"), message);
  }
}

TEST_CASE("tokenize: a pattern too long or nested too deep is refused, not a stack overflow") {
  const std::string split =
      R"("pre_tokenizer":{"type":"Split","behavior":"Isolated","invert":false,"pattern":{"Regex":")";
  CHECK(test::contains(refusal(minimal(split + std::string(400, '(') + "a" + std::string(400, ')') + "\"}}")),
                       "groups nested deeper than 32"));
  CHECK(test::contains(refusal(minimal(split + std::string(60000, 'a') + "\"}}")),
                       "a regex of 60000 characters is over the limit of 1000"));
  const std::string replace = R"("normalizer":{"type":"Replace","content":"b","pattern":{"String":")";
  CHECK(test::contains(refusal(minimal(replace + std::string(60000, 'a') + "\"}}")),
                       "a String of 60000 characters is over the limit of 1000"));
  CHECK(parse_tokenizer(minimal(split + std::string(30, '(') + "a" + std::string(30, ')') + "\"}}")).ok());
}

TEST_CASE("tokenize: \"\" for continuing_subword_prefix and end_of_word_suffix is absent (GPT-2's file has them)") {
  CHECK(parse_tokenizer(minimal("", R"({"type":"BPE","vocab":{"a":0},"merges":[],"continuing_subword_prefix":"",
                                "end_of_word_suffix":null})"))
            .ok());
  CHECK(test::contains(refusal(minimal("", R"({"type":"BPE","vocab":{"a":0},"merges":[],
                                               "continuing_subword_prefix":"##"})")),
                       "\"model.continuing_subword_prefix\" is not supported"));
}

TEST_CASE("tokenize: Split's behaviours and invert, as the Rust tokenizers define them") {
  const auto split = [](const char* behavior, bool invert, const char* regex = "-") {
    return pre_tokens(std::string(R"({"type":"Split","pattern":{"String":")") + regex + R"("},"behavior":")" +
                          behavior + R"(","invert":)" + (invert ? "true" : "false") + "}",
                      "the-final--countdown");
  };
  using V = std::vector<std::string>;
  CHECK(split("Removed", false) == V{"the", "final", "countdown"});
  CHECK(split("Isolated", false) == V{"the", "-", "final", "-", "-", "countdown"});
  CHECK(split("MergedWithPrevious", false) == V{"the-", "final-", "-", "countdown"});
  CHECK(split("MergedWithNext", false) == V{"the", "-final", "-", "-countdown"});
  CHECK(split("Contiguous", false) == V{"the", "-", "final", "--", "countdown"});
  CHECK(split("Removed", true) == V{"-", "-", "-"});
}

TEST_CASE("tokenize: the GPT-2 and Llama 3 patterns, digits and Metaspace") {
  using V = std::vector<std::string>;
  CHECK(pre_tokens(R"({"type":"ByteLevel","add_prefix_space":false,"use_regex":true})", "It's 2  x!") ==
        V{"It", "'s", "Ġ2", "Ġ", "Ġx", "!"});
  const std::string llama3 = R"({"type":"Split","behavior":"Isolated","invert":false,"pattern":{"Regex":)"
                             R"("(?i:'s|'t)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|)"
                             R"(\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}})";
  CHECK(pre_tokens(llama3, "IT'S 12345\r\n  ok") == V{"IT", "'S", " ", "123", "45", "\r\n", " ", " ok"});
  CHECK(pre_tokens(R"({"type":"Digits","individual_digits":true})", "ab12c") == V{"ab", "1", "2", "c"});
  CHECK(pre_tokens(R"({"type":"Digits","individual_digits":false})", "ab12c") == V{"ab", "12", "c"});
  CHECK(pre_tokens(R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true})", "a b  c") ==
        V{"▁a", "▁b", "▁", "▁c"});
}

TEST_CASE("tokenize: NFC, NFD, NFKC, NFKD (composed and decomposed forms, Hangul, canonical order)") {
  CHECK(nf("e\xCC\x81", unicode::Form::NFC) == "\xC3\xA9");  // e + acute -> é
  CHECK(nf("\xC3\xA9", unicode::Form::NFD) == "e\xCC\x81");
  CHECK(nf("\xE2\x84\xAB", unicode::Form::NFC) == "\xC3\x85");  // Angstrom sign -> Å
  CHECK(nf("\xEF\xAC\x81", unicode::Form::NFKC) == "fi");       // ﬁ ligature
  CHECK(nf("\xEF\xAC\x81", unicode::Form::NFC) == "\xEF\xAC\x81");
  CHECK(nf("\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB", unicode::Form::NFC) == "\xED\x95\x9C");  // jamo -> 한
  CHECK(nf("\xED\x95\x9C", unicode::Form::NFD) == "\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB");
  CHECK(nf("d\xCC\x87\xCC\xA3", unicode::Form::NFC) == "\xE1\xB8\x8D\xCC\x87");  // dot below sorts first, composes
  CHECK(nf("\xEF\xBC\xA1\xE2\x91\xA0", unicode::Form::NFKD) == "A1");            // fullwidth A, circled 1
  CHECK(nf("\xE0\xA5\x98", unicode::Form::NFC) == "\xE0\xA4\x95\xE0\xA4\xBC");   // an exclusion stays decomposed
  CHECK(std::string(unicode::version()).rfind("15.", 0) == 0);
}

TEST_CASE("tokenize: the regex engine, leftmost-first with lookahead") {
  const Expected<Regex> re = Regex::compile(R"(\s+(?!\S)|\s+|[a-c]{2}|x?y)", RegexDialect::Oniguruma);
  REQUIRE(re);
  const std::u32string text = U"ab   c y  ";
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  for (const Span& s : re->find_all(text)) spans.push_back({s.begin, s.end});
  CHECK(spans == std::vector<std::pair<std::size_t, std::size_t>>{{0, 2}, {2, 4}, {4, 5}, {6, 7}, {7, 8}, {8, 10}});
  CHECK(unicode::is_js_space(0xFEFF));
  CHECK_FALSE(unicode::is_white_space(0xFEFF));
  CHECK(unicode::is_white_space(0x85));
  CHECK_FALSE(unicode::is_js_space(0x85));
}
