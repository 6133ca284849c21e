// tokenizer.json's normalizer, pre_tokenizer, post_processor and decoder -> typed components (tokenizer.hpp);
// Sequences flattened, anything else refused by its type name.
#include "core/tokenize/components_parse.hpp"

#include "core/tokenize/unicode.hpp"

namespace rv::tokenize {
namespace {

using Kind = JsonValue::Kind;
const char kByteLevelRegex[] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

std::optional<Error> not_object(const JsonValue& v, const std::string& path) {
  if (v.kind == Kind::Object) return std::nullopt;
  return bad_request("tokenizer.json: \"" + path + "\" must be an object");
}

// A member that is a list of components: Sequence's "normalizers", "pretokenizers", "processors", "decoders".
template <class Read>
std::optional<Error> each(Fields& f, const char* key, Read read) {
  const JsonValue* list = f.find(key);
  if (!list || list->kind != Kind::Array) return bad_request("tokenizer.json: \"" + f.at(key) + "\" must be a list");
  for (std::size_t i = 0; i < list->array.size(); ++i)
    if (auto e = read(list->array[i], f.at(key) + "[" + std::to_string(i) + "]")) return e;
  return std::nullopt;
}

// One code point from a string field ("replacement": "▁", Strip's "content": " ").
char32_t one_char(Fields& f, const char* key, const char* fallback) {
  const std::u32string s = unicode::decode_utf8(f.string(key, std::string(fallback)));
  if (s.size() != 1) f.fail("\"" + f.at(key) + "\" must be one character");
  return s.empty() ? U' ' : s[0];
}

PrependScheme prepend_scheme(Fields& f) {
  if (!f.find("prepend_scheme"))
    return f.boolean("add_prefix_space", true) ? PrependScheme::Always : PrependScheme::Never;
  const std::string s = f.string("prepend_scheme");
  if (s == "first") return PrependScheme::First;
  if (s == "never") return PrependScheme::Never;
  if (s != "always") f.fail("\"" + f.at("prepend_scheme") + "\" must be \"always\", \"first\" or \"never\"");
  return PrependScheme::Always;
}

std::optional<SplitBehavior> split_behavior(const std::string& s) {
  if (s == "Isolated") return SplitBehavior::Isolated;
  if (s == "Removed") return SplitBehavior::Removed;
  if (s == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
  if (s == "MergedWithNext") return SplitBehavior::MergedWithNext;
  if (s == "Contiguous") return SplitBehavior::Contiguous;
  return std::nullopt;
}

}  // namespace

Expected<Regex> read_pattern(Fields& f) {
  const JsonValue* p = f.find("pattern");
  if (!p || p->kind != Kind::Object)
    return bad_request("tokenizer.json: \"" + f.at("pattern") + "\" must be an object");
  Fields pattern(*p, f.at("pattern"));
  if (pattern.find("String")) {
    const std::u32string literal = unicode::decode_utf8(pattern.string("String"));
    if (literal.size() > Regex::kMaxChars)
      return bad_request("tokenizer.json: \"" + f.at("pattern") + "\": a String of " + std::to_string(literal.size()) +
                         " characters is over the limit of " + std::to_string(Regex::kMaxChars));
    return Regex::literal(literal);
  }
  const std::string regex = pattern.string("Regex");
  if (pattern.error) return bad_request(pattern.error->message + " (a \"String\" or a \"Regex\")");
  Expected<Regex> re = Regex::compile(regex, RegexDialect::Oniguruma);
  if (!re) return bad_request("tokenizer.json: \"" + f.at("pattern") + "\": " + re.error().message);
  return re;
}

std::optional<Error> read_normalizer(const JsonValue& v, const std::string& path, std::vector<Normalizer>& out) {
  if (auto e = not_object(v, path)) return e;
  Fields f(v, path);
  const std::string type = f.string("type");
  if (f.error) return f.error;
  if (type == "Sequence")
    return each(f, "normalizers", [&](const JsonValue& x, const std::string& p) { return read_normalizer(x, p, out); });
  if (type == "NFC")
    out.push_back(UnicodeNormalizer{unicode::Form::NFC});
  else if (type == "NFD")
    out.push_back(UnicodeNormalizer{unicode::Form::NFD});
  else if (type == "NFKC")
    out.push_back(UnicodeNormalizer{unicode::Form::NFKC});
  else if (type == "NFKD")
    out.push_back(UnicodeNormalizer{unicode::Form::NFKD});
  else if (type == "Prepend")
    out.push_back(PrependNormalizer{unicode::decode_utf8(f.string("prepend"))});
  else if (type == "Replace") {
    Expected<Regex> pattern = read_pattern(f);
    if (!pattern) return pattern.error();
    out.push_back(ReplaceNormalizer{std::move(pattern.value()), unicode::decode_utf8(f.string("content", ""))});
  } else {
    return unsupported("normalizer", type, "NFC, NFD, NFKC, NFKD, Prepend, Replace, Sequence");
  }
  return f.error;
}

std::optional<Error> read_pre_tokenizer(const JsonValue& v, const std::string& path, std::vector<PreTokenizer>& out) {
  if (auto e = not_object(v, path)) return e;
  Fields f(v, path);
  const std::string type = f.string("type");
  if (f.error) return f.error;
  if (type == "Sequence")
    return each(f, "pretokenizers",
                [&](const JsonValue& x, const std::string& p) { return read_pre_tokenizer(x, p, out); });
  if (type == "ByteLevel") {
    Expected<Regex> gpt2 = Regex::compile(kByteLevelRegex, RegexDialect::JavaScript);
    out.push_back(ByteLevelPreTokenizer{f.boolean("add_prefix_space", false), f.boolean("use_regex", true), *gpt2});
  } else if (type == "Split") {
    Expected<Regex> pattern = read_pattern(f);
    if (!pattern) return pattern.error();
    const std::string behavior = f.string("behavior");
    const std::optional<SplitBehavior> b = split_behavior(behavior);
    if (!b && !f.error)
      f.fail("\"" + f.at("behavior") +
             "\" must be Isolated, Removed, MergedWithPrevious, MergedWithNext or "
             "Contiguous, got \"" +
             behavior + "\"");
    out.push_back(
        SplitPreTokenizer{std::move(pattern.value()), b.value_or(SplitBehavior::Isolated), f.boolean("invert", false)});
  } else if (type == "Digits") {
    out.push_back(DigitsPreTokenizer{f.boolean("individual_digits", false)});
  } else if (type == "Metaspace") {
    const char32_t r = one_char(f, "replacement", "\xE2\x96\x81");
    out.push_back(MetaspacePreTokenizer{r, prepend_scheme(f), f.boolean("split", true)});
  } else {
    return unsupported("pre_tokenizer", type, "ByteLevel, Split, Digits, Metaspace, Sequence");
  }
  return f.error;
}

std::optional<Error> read_decoder(const JsonValue& v, const std::string& path, std::vector<Decoder>& out) {
  if (auto e = not_object(v, path)) return e;
  Fields f(v, path);
  const std::string type = f.string("type");
  if (f.error) return f.error;
  if (type == "Sequence")
    return each(f, "decoders", [&](const JsonValue& x, const std::string& p) { return read_decoder(x, p, out); });
  if (type == "ByteLevel")
    out.push_back(ByteLevelDecoder{});
  else if (type == "ByteFallback")
    out.push_back(ByteFallbackDecoder{});
  else if (type == "Fuse")
    out.push_back(FuseDecoder{});
  else if (type == "Metaspace") {
    const char32_t r = one_char(f, "replacement", "\xE2\x96\x81");
    out.push_back(MetaspaceDecoder{r, prepend_scheme(f) != PrependScheme::Never});
  } else if (type == "Strip") {
    const char32_t c = one_char(f, "content", " ");
    const long long start = f.integer("start", 0), stop = f.integer("stop", 0);
    if (start < 0 || stop < 0) f.fail("\"" + f.at("start") + "\" and \"stop\" must be >= 0");
    out.push_back(StripDecoder{c, int(start), int(stop)});
  } else if (type == "Replace") {
    Expected<Regex> pattern = read_pattern(f);
    if (!pattern) return pattern.error();
    out.push_back(ReplaceDecoder{std::move(pattern.value()), unicode::decode_utf8(f.string("content", ""))});
  } else {
    return unsupported("decoder", type, "ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, Sequence");
  }
  return f.error;
}

}  // namespace rv::tokenize
