// The tokenize and detokenize ops (cli/eval_tokenize.hpp).
#include "cli/eval_tokenize.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>

namespace rv::cli {

constexpr std::size_t kMaxIds = 10000000;  // ids in one detokenize request

Expected<tokenize::Tokenizer> request_tokenizer(FieldReader& r) {
  std::string path = r.string("tokenizer");
  if (r.error) return *r.error;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) path += path.back() == '/' ? "tokenizer.json" : "/tokenizer.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) return bad_request("\"tokenizer\": cannot read " + path);
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, std::size_t(in.gcount()));
    if (text.size() > tokenize::kMaxTokenizerJsonBytes)
      return bad_request("\"tokenizer\": " + path + " is over the limit of 32 MiB");
  }
  Expected<tokenize::Tokenizer> t = tokenize::parse_tokenizer(text);
  if (!t) return bad_request("\"tokenizer\" " + path + ": " + t.error().message);
  return t;
}

std::optional<Error> op_tokenize(FieldReader& r, JsonWriter& w) {
  const std::string text = r.string("text");
  const bool special = r.boolean("add_special_tokens", false);
  if (r.error) return *r.error;
  Expected<tokenize::Tokenizer> t = request_tokenizer(r);
  if (!t) return t.error();
  tokenize::Encoding e = tokenize::encode(*t, text, special);
  w.begin_object().key("ids").list(e.ids).key("tokens").values(e.tokens).end_object();
  return std::nullopt;
}

std::optional<Error> op_detokenize(FieldReader& r, JsonWriter& w) {
  const std::vector<long long> ids = r.integers("ids", kMaxIds);
  if (r.error) return *r.error;
  Expected<tokenize::Tokenizer> t = request_tokenizer(r);
  if (!t) return t.error();
  Expected<std::string> text = tokenize::decode(*t, ids);
  if (!text) return text.error();
  w.begin_object().field("text", *text).end_object();
  return std::nullopt;
}

}  // namespace rv::cli
