// tokenizer.json -> Tokenizer (tokenizer.hpp): the BPE model, the added tokens and the post-processor here, the other
// components in components_parse.cpp.
#include "core/tokenize/components_parse.hpp"
#include "core/tokenize/tokenizer.hpp"

namespace rv::tokenize {
namespace {

using Kind = JsonValue::Kind;
constexpr long long kMaxTokenId = 2147483647;

std::optional<Error> fail(const std::string& message) {
  return bad_request("tokenizer.json: " + message);
}

int intern(BpeModel& m, const std::string& piece) {
  return m.pieces.emplace(piece, int(m.pieces.size())).first->second;
}

std::optional<Error> read_merges(const JsonValue& list, BpeModel& m) {
  if (list.kind != Kind::Array) return fail("\"model.merges\" must be a list");
  for (std::size_t rank = 0; rank < list.array.size(); ++rank) {
    const JsonValue& v = list.array[rank];
    std::string a, b;
    if (v.kind == Kind::Array && v.array.size() == 2 && v.array[0].kind == Kind::String &&
        v.array[1].kind == Kind::String) {
      a = v.array[0].string, b = v.array[1].string;
    } else if (v.kind == Kind::String && v.string.find(' ') != std::string::npos) {  // "a b", the older form
      const std::size_t space = v.string.find(' ');
      a = v.string.substr(0, space), b = v.string.substr(space + 1, v.string.find(' ', space + 1) - space - 1);
    } else {
      return fail("\"model.merges[" + std::to_string(rank) + "]\" must be two strings, [a, b] or \"a b\"");
    }
    const unsigned long long key = (unsigned long long)intern(m, a) << 32 | (unsigned)intern(m, b);
    m.merges[key] = {int(rank), intern(m, a + b)};  // a repeated pair keeps its last rank, as a JS Map does
  }
  return std::nullopt;
}

void name_id(Tokenizer& t, long long id, const std::string& token) {
  t.id_to_token[id] = token;  // a later token with the same id takes it, as JS's vocab[id] = token
}

std::optional<Error> read_model(const JsonValue& v, Tokenizer& t) {
  BpeModel& m = t.model;
  if (v.kind != Kind::Object) return fail("\"model\" must be an object");
  Fields f(v, "model");
  const std::string type = f.string("type", f.find("merges") ? "BPE" : "");
  if (type != "BPE") return unsupported("model", type, "BPE");
  // "" (or null) is the same as absent: Hugging Face's converters write "" into GPT-2's and many BPE models' files
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (const JsonValue* x = f.find(key); x && x->kind != Kind::Null && !(x->kind == Kind::String && x->string.empty()))
      return fail("\"model." + std::string(key) + "\" is not supported");
  m.unk_token = f.optional_string("unk_token");
  m.fuse_unk = f.boolean("fuse_unk", false);
  m.byte_fallback = f.boolean("byte_fallback", false);
  m.ignore_merges = f.boolean("ignore_merges", false);
  if (f.error) return f.error;
  const JsonValue* vocab = f.find("vocab");
  if (!vocab || vocab->kind != Kind::Object) return fail("\"model.vocab\" must be an object {token: id}");
  for (const auto& [token, id] : vocab->object) {
    if (id.kind != Kind::Number || !id.integer || id.number < 0 || id.number > double(kMaxTokenId))
      return fail("\"model.vocab\": the id of \"" + token + "\" must be an integer in [0, 2^31 - 1]");
    m.vocab[token] = (long long)id.number;
    name_id(t, (long long)id.number, token);
  }
  const JsonValue* merges = f.find("merges");
  return merges ? read_merges(*merges, m) : std::nullopt;
}

std::optional<Error> read_added_tokens(const JsonValue* list, Tokenizer& t) {
  if (!list) return std::nullopt;
  if (list->kind != Kind::Array) return fail("\"added_tokens\" must be a list");
  for (std::size_t i = 0; i < list->array.size(); ++i) {
    const std::string path = "added_tokens[" + std::to_string(i) + "]";
    if (list->array[i].kind != Kind::Object) return fail("\"" + path + "\" must be an object");
    Fields f(list->array[i], path);
    AddedToken a;
    a.id = f.integer("id");
    a.content = f.string("content");
    a.special = f.boolean("special", false);
    a.normalized = f.boolean("normalized", !a.special);
    a.lstrip = f.boolean("lstrip", false);
    a.rstrip = f.boolean("rstrip", false);
    a.single_word = f.boolean("single_word", false);
    if (f.error) return f.error;
    if (a.id < 0 || a.id > kMaxTokenId) return fail("\"" + path + ".id\" must be in [0, 2^31 - 1]");
    if (a.content.empty()) return fail("\"" + path + ".content\" must not be empty");
    t.model.vocab[a.content] = a.id;
    name_id(t, a.id, a.content);
    t.added_tokens.push_back(std::move(a));
  }
  return std::nullopt;
}

// TemplateProcessing's "single" (the pair template is for two texts, which the ops never take).
std::optional<Error> read_template(Fields& f, PostProcessor& p) {
  const JsonValue* single = f.find("single");
  const JsonValue* specials = f.find("special_tokens");
  if (!single || single->kind != Kind::Array) return fail("\"" + f.at("single") + "\" must be a list");
  for (const JsonValue& item : single->array) {
    const JsonValue* seq = item.find("Sequence");
    const JsonValue* special = item.find("SpecialToken");
    const JsonValue* name = special ? special->find("id") : nullptr;
    if (seq) {
      p.single.push_back(TemplatePiece{true, {}, {}});
      continue;
    }
    if (!name || name->kind != Kind::String) return fail("\"" + f.at("single") + "\" holds an unknown piece");
    const JsonValue* entry = specials ? specials->find(name->string) : nullptr;
    if (!entry || entry->kind != Kind::Object)
      return fail("the special token \"" + name->string + "\" is not in \"" + f.at("special_tokens") + "\"");
    Fields e(*entry, f.at("special_tokens") + "." + name->string);
    TemplatePiece piece;
    const JsonValue* ids = e.find("ids");
    const JsonValue* tokens = e.find("tokens");
    if (!ids || !tokens || ids->kind != Kind::Array || tokens->kind != Kind::Array ||
        ids->array.size() != tokens->array.size())
      return fail("\"" + e.path() + "\" needs \"ids\" and \"tokens\" of the same length");
    for (std::size_t i = 0; i < ids->array.size(); ++i) {
      const JsonValue &id = ids->array[i], &token = tokens->array[i];
      if (id.kind != Kind::Number || !id.integer || id.number < 0 || id.number > double(kMaxTokenId) ||
          token.kind != Kind::String)
        return fail("\"" + e.path() + "\" has an id or token of the wrong kind");
      piece.ids.push_back((long long)id.number);
      piece.tokens.push_back(token.string);
    }
    p.single.push_back(std::move(piece));
  }
  return std::nullopt;
}

std::optional<Error> read_post_processor(const JsonValue& v, const std::string& path, std::vector<PostProcessor>& out) {
  if (v.kind != Kind::Object) return fail("\"" + path + "\" must be an object");
  Fields f(v, path);
  const std::string type = f.string("type");
  if (f.error) return f.error;
  if (type == "ByteLevel") return std::nullopt;  // offsets only: the tokens stay as they are
  if (type == "Sequence") {
    const JsonValue* list = f.find("processors");
    if (!list || list->kind != Kind::Array) return fail("\"" + f.at("processors") + "\" must be a list");
    for (std::size_t i = 0; i < list->array.size(); ++i)
      if (auto e = read_post_processor(list->array[i], f.at("processors") + "[" + std::to_string(i) + "]", out))
        return e;
    return std::nullopt;
  }
  PostProcessor p;
  if (type == "TemplateProcessing") {
    if (auto e = read_template(f, p)) return e;
  } else if (type == "BertProcessing" || type == "RobertaProcessing") {  // cls A sep, each [token, id]
    for (const char* key : {"cls", "sep"}) {
      const JsonValue* pair = f.find(key);
      if (!pair || pair->kind != Kind::Array || pair->array.size() != 2 || pair->array[0].kind != Kind::String ||
          pair->array[1].kind != Kind::Number || !pair->array[1].integer || pair->array[1].number < 0)
        return fail("\"" + f.at(key) + "\" must be [token, id]");
      if (p.single.empty()) p.single.push_back({});
      p.single.push_back(TemplatePiece{false, {pair->array[0].string}, {(long long)pair->array[1].number}});
    }
    p.single[0] = TemplatePiece{false, p.single[1].tokens, p.single[1].ids};
    p.single[1] = TemplatePiece{true, {}, {}};
  } else {
    return unsupported("post_processor", type,
                       "TemplateProcessing, ByteLevel, BertProcessing, RobertaProcessing, "
                       "Sequence");
  }
  out.push_back(std::move(p));
  return std::nullopt;
}

}  // namespace

Expected<Tokenizer> parse_tokenizer(std::string_view json_text) {
  Expected<JsonValue> root = parse_json(json_text, kMaxTokenizerJsonBytes);
  if (!root) return bad_request("tokenizer.json: " + root.error().message);
  if (root->kind != Kind::Object) return bad_request("tokenizer.json must be a JSON object");
  Tokenizer t;
  const JsonValue* model = root->find("model");
  if (!model) return bad_request("tokenizer.json: missing required field \"model\"");
  if (auto e = read_model(*model, t)) return *e;
  if (auto e = read_added_tokens(root->find("added_tokens"), t)) return *e;
  const auto present = [&](const char* key) {
    const JsonValue* v = root->find(key);
    return v && v->kind != Kind::Null ? v : nullptr;
  };
  if (const JsonValue* v = present("normalizer"))
    if (auto e = read_normalizer(*v, "normalizer", t.normalizers)) return *e;
  if (const JsonValue* v = present("pre_tokenizer"))
    if (auto e = read_pre_tokenizer(*v, "pre_tokenizer", t.pre_tokenizers)) return *e;
  if (const JsonValue* v = present("post_processor"))
    if (auto e = read_post_processor(*v, "post_processor", t.post_processors)) return *e;
  if (const JsonValue* v = present("decoder")) {
    t.decoders.emplace();
    if (auto e = read_decoder(*v, "decoder", *t.decoders)) return *e;
  }
  if (t.model.unk_token && !t.model.vocab.count(*t.model.unk_token))
    return bad_request("tokenizer.json: \"model.unk_token\" \"" + *t.model.unk_token + "\" is not in the vocabulary");
  return t;
}

}  // namespace rv::tokenize
