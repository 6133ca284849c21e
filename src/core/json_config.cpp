// Reads a Hugging Face config.json into HfConfig without exceptions escaping, and guards JSON text size and depth.
#include "core/json_config.hpp"

#include <cmath>
#include <initializer_list>
#include <limits>

namespace rv {
namespace {
using json = nlohmann::ordered_json;

const char* type_word(const json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "a number";
}

bool nonfinite_word(const json& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  return s == "NaN" || s == "Infinity" || s == "-Infinity";
}

// Reads fields of one object; the first problem is kept and names the field (with prefix, e.g. "rope_scaling.").
struct Reader {
  const json& j;
  std::string prefix;
  std::optional<Error> error;

  const json* find(const char* key) const {
    auto it = j.find(key);
    return (it == j.end() || it->is_null()) ? nullptr : &*it;
  }
  void fail(const char* key, const std::string& what) {
    if (!error) error = bad_request(prefix + key + " " + what);
  }
  std::optional<double> number(const char* key) {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (nonfinite_word(*v)) {
      fail(key, "must be a finite number, got " + v->get<std::string>());
      return std::nullopt;
    }
    if (!v->is_number()) {
      fail(key, std::string("must be a number, got ") + type_word(*v));
      return std::nullopt;
    }
    const double x = v->get<double>();
    if (!std::isfinite(x)) {
      fail(key, "must be a finite number");
      return std::nullopt;
    }
    return x;
  }
  std::optional<long long> integer(const char* key) {
    const json* v = find(key);
    auto x = number(key);
    if (!x) return std::nullopt;
    if (v->is_number_unsigned() &&
        v->get<unsigned long long>() > static_cast<unsigned long long>(std::numeric_limits<long long>::max())) {
      fail(key, "is too large");
      return std::nullopt;
    }
    if (v->is_number_integer()) return v->get<long long>();
    if (*x != std::floor(*x)) {
      fail(key, "must be an integer, got " + format_number(*x));
      return std::nullopt;
    }
    if (std::fabs(*x) > 9007199254740992.0) {
      fail(key, "is too large, got " + format_number(*x));
      return std::nullopt;
    }
    return static_cast<long long>(*x);
  }
  // The first of several spellings that is present (e.g. hidden_size, then n_embd, then dim).
  std::optional<long long> integer(std::initializer_list<const char*> keys) {
    for (const char* key : keys)
      if (find(key)) return integer(key);
    return std::nullopt;
  }
  std::optional<std::string> string(const char* key) {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_string()) {
      fail(key, std::string("must be a string, got ") + type_word(*v));
      return std::nullopt;
    }
    return v->get<std::string>();
  }
  std::optional<bool> boolean(const char* key) {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) {
      fail(key, std::string("must be true or false, got ") + type_word(*v));
      return std::nullopt;
    }
    return v->get<bool>();
  }
  std::optional<std::vector<double>> numbers(const char* key) {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_array()) {
      fail(key, std::string("must be an array of numbers, got ") + type_word(*v));
      return std::nullopt;
    }
    if (v->size() > static_cast<std::size_t>(kMaxHeadDim)) {
      fail(key, "has more than 65536 entries");
      return std::nullopt;
    }
    std::vector<double> out;
    for (const json& e : *v) {
      if (!e.is_number() || !std::isfinite(e.get<double>())) {
        fail(key, "must contain only finite numbers");
        return std::nullopt;
      }
      out.push_back(e.get<double>());
    }
    return out;
  }
};

// A SAX consumer that accepts everything and keeps the parser's error message (nlohmann hands it the exception
// object instead of throwing it, so this works where exceptions are off, as in the web build).
struct ErrorOnly : nlohmann::json_sax<json> {
  std::string message = "not valid JSON";
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) override {
    message = ex.what();
    return false;
  }
};

}  // namespace

std::optional<Error> check_json_text(std::string_view text, std::size_t max_bytes, int max_depth) {
  if (text.size() > max_bytes)
    return bad_request("JSON text of " + std::to_string(text.size()) + " bytes is over the limit of " +
                       std::to_string(max_bytes) + " bytes");
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (ch == '\\')
        ++i;
      else if (ch == '"')
        in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > max_depth)
        return bad_request("JSON nests deeper than the limit of " + std::to_string(max_depth) + " levels");
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

std::optional<std::string> quote_nonfinite_literals(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false, found = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      out += ch;
      if (ch == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (ch == '"')
        in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    bool replaced = false;
    for (std::string_view word :
         {std::string_view("NaN"), std::string_view("-Infinity"), std::string_view("Infinity")}) {
      if (text.substr(i, word.size()) == word) {
        out += '"';
        out += word;
        out += '"';
        i += word.size() - 1;
        replaced = found = true;
        break;
      }
    }
    if (!replaced) out += ch;
  }
  if (!found) return std::nullopt;
  return out;
}

Expected<json> parse_json_text(std::string_view text, std::size_t max_bytes) {
  if (auto e = check_json_text(text, max_bytes)) return *e;
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (!j.is_discarded()) return j;
  if (auto quoted = quote_nonfinite_literals(text)) {
    json k = json::parse(*quoted, nullptr, false);
    if (!k.is_discarded()) return k;
  }
  ErrorOnly handler;  // parse again, only to get nlohmann's message with the position, without a throw
  json::sax_parse(text.begin(), text.end(), &handler);
  return bad_request("malformed JSON: " + handler.message);
}

Expected<HfConfig> hf_config_from_json(const json& j) {
  if (!j.is_object()) return bad_request(std::string("config must be a JSON object, got ") + type_word(j));
  // multimodal configs (Llava, Gemma 3, Mistral 3, ...) keep the language model's fields in text_config
  auto tc = j.find("text_config");
  if (tc != j.end() && tc->is_object() && !j.contains("hidden_size") && !j.contains("n_embd") && !j.contains("dim") &&
      !j.contains("head_dim")) {
    auto inner = hf_config_from_json(*tc);
    if (!inner) return bad_request("text_config." + inner.error().message);
    return inner;
  }
  Reader r{j, "", std::nullopt};
  HfConfig c;
  c.model_type = r.string("model_type");
  c.position_embedding_type = r.string("position_embedding_type");
  c.hidden_size = r.integer({"hidden_size", "n_embd", "dim"});  // dim, n_heads: DistilBERT's attribute map
  c.num_attention_heads = r.integer({"num_attention_heads", "n_head", "n_heads"});
  c.head_dim = r.integer("head_dim");
  c.max_position_embeddings = r.integer({"max_position_embeddings", "n_positions"});
  c.original_max_position_embeddings = r.integer("original_max_position_embeddings");
  c.rotary_dim = r.integer("rotary_dim");
  c.qk_rope_head_dim = r.integer("qk_rope_head_dim");
  c.partial_rotary_factor = r.number("partial_rotary_factor");
  c.rotary_pct = r.number("rotary_pct");
  c.rope_theta = r.number("rope_theta");
  c.rotary_emb_base = r.number("rotary_emb_base");
  if (r.error) return *r.error;
  if (const json* rs = r.find("rope_scaling")) {
    if (!rs->is_object())
      return bad_request(std::string("rope_scaling must be an object or null, got ") + type_word(*rs));
    Reader s{*rs, "rope_scaling.", std::nullopt};
    HfRopeScaling h;
    h.rope_type = s.string("rope_type");
    h.type = s.string("type");
    h.factor = s.number("factor");
    h.original_max_position_embeddings = s.number("original_max_position_embeddings");
    h.beta_fast = s.number("beta_fast");
    h.beta_slow = s.number("beta_slow");
    h.attention_factor = s.number("attention_factor");
    h.mscale = s.number("mscale");
    h.mscale_all_dim = s.number("mscale_all_dim");
    h.low_freq_factor = s.number("low_freq_factor");
    h.high_freq_factor = s.number("high_freq_factor");
    h.truncate = s.boolean("truncate");
    h.short_factor = s.numbers("short_factor");
    h.long_factor = s.numbers("long_factor");
    if (s.error) return *s.error;
    c.rope_scaling = std::move(h);
  }
  return c;
}

Expected<HfConfig> parse_hf_config(std::string_view text) {
  auto j = parse_json_text(text);
  if (!j) return j.error();
  return hf_config_from_json(*j);
}

}  // namespace rv
