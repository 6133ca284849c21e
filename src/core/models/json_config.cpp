// Reads a Hugging Face config.json into HfConfig: types checked, legacy and transformers 5 spellings folded,
// text_config followed.
#include "core/models/json_config.hpp"
#include "core/base/constants.hpp"
#include "core/base/format.hpp"

#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace rv {
namespace {
using Kind = JsonValue::Kind;

const char* type_word(const JsonValue& v) {
  if (v.kind == Kind::Null) return "null";
  if (v.kind == Kind::String) return "a string";
  if (v.kind == Kind::Boolean) return "a boolean";
  if (v.kind == Kind::Array) return "an array";
  if (v.kind == Kind::Object) return "an object";
  return "a number";
}

// How a non-finite number was written: the tokens NaN, Infinity, -Infinity or the same words as strings (Python's
// json.dumps writes the tokens; other writers quote them). nullptr for anything else.
const char* nonfinite_word(const JsonValue& v) {
  if (v.kind == Kind::Number && !std::isfinite(v.number))
    return std::isnan(v.number) ? "NaN" : (v.number > 0 ? "Infinity" : "-Infinity");
  if (v.kind == Kind::String && (v.string == "NaN" || v.string == "Infinity" || v.string == "-Infinity"))
    return v.string.c_str();
  return nullptr;
}

// Reads fields of one object; the first problem is kept and names the field (with prefix, e.g. "rope_scaling.").
struct Reader {
  const JsonValue& j;
  std::string prefix;
  std::optional<Error> error;

  const JsonValue* find(const char* key) const {
    const JsonValue* v = j.find(key);
    return (v && v->kind != Kind::Null) ? v : nullptr;
  }
  void fail(const char* key, const std::string& what) {
    if (!error) error = bad_request(prefix + key + " " + what);
  }
  std::optional<double> number(const char* key) {
    const JsonValue* v = find(key);
    if (!v) return std::nullopt;
    if (const char* word = nonfinite_word(*v)) {
      fail(key, std::string("must be a finite number, got ") + word);
      return std::nullopt;
    }
    if (v->kind != Kind::Number) {
      fail(key, std::string("must be a number, got ") + type_word(*v));
      return std::nullopt;
    }
    return v->number;
  }
  std::optional<long long> integer(const char* key) {
    const JsonValue* v = find(key);
    auto x = number(key);
    if (!x) return std::nullopt;
    if (v->integer && std::fabs(*x) >= kExactWhole) {  // the digits written may not be the double read
      fail(key, "is too large");
      return std::nullopt;
    }
    if (*x != std::floor(*x)) {
      fail(key, "must be an integer, got " + format_number(*x));
      return std::nullopt;
    }
    if (std::fabs(*x) > kExactWhole) {
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
    return typed(key, Kind::String, "must be a string, got ", &JsonValue::string);
  }
  std::optional<bool> boolean(const char* key) {
    return typed(key, Kind::Boolean, "must be true or false, got ", &JsonValue::boolean);
  }
  // The member of one kind, or nullopt (absent, or of another kind: then a failure naming the key).
  template <class T>
  std::optional<T> typed(const char* key, Kind kind, const char* must, T JsonValue::*member) {
    const JsonValue* v = find(key);
    if (!v) return std::nullopt;
    if (v->kind != kind) {
      fail(key, std::string(must) + type_word(*v));
      return std::nullopt;
    }
    return v->*member;
  }
  // An array of strings (layer_types), of at most 65536 entries.
  std::optional<std::vector<std::string>> strings(const char* key) {
    const JsonValue* v = find(key);
    if (!v) return std::nullopt;
    if (v->kind != Kind::Array || v->array.size() > 65536u) {
      fail(key, std::string("must be an array of at most 65536 strings, got ") + type_word(*v));
      return std::nullopt;
    }
    std::vector<std::string> out;
    for (const JsonValue& e : v->array) {
      if (e.kind != Kind::String) {
        fail(key, std::string("must contain only strings, got ") + type_word(e));
        return std::nullopt;
      }
      out.push_back(e.string);
    }
    return out;
  }
  std::optional<std::vector<double>> numbers(const char* key) {
    const JsonValue* v = find(key);
    if (!v) return std::nullopt;
    if (v->kind != Kind::Array) {
      fail(key, std::string("must be an array of numbers, got ") + type_word(*v));
      return std::nullopt;
    }
    if (v->array.size() > static_cast<std::size_t>(kMaxHeadDim)) {
      fail(key, "has more than 65536 entries");
      return std::nullopt;
    }
    std::vector<double> out;
    for (const JsonValue& e : v->array) {
      if (e.kind != Kind::Number || !std::isfinite(e.number)) {
        fail(key, "must contain only finite numbers");
        return std::nullopt;
      }
      out.push_back(e.number);
    }
    return out;
  }
};

// The scaling fields of rope_scaling, or of a transformers 5 rope_parameters object, read by s.
HfRopeScaling read_scaling(Reader& s) {
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
  return h;
}

// A member that must be an object when given: nullptr when absent or null, else a BadRequest naming it.
Expected<const JsonValue*> object_or_null(const JsonValue& j, const char* key, const std::string& prefix) {
  const JsonValue* v = j.find(key);
  if (!v || v->kind == Kind::Null) return static_cast<const JsonValue*>(nullptr);
  if (v->kind != Kind::Object) return bad_request(prefix + key + " must be an object or null, got " + type_word(*v));
  return v;
}

// rope_scaling, rope_parameters (transformers 5) and rope_local_base_freq into c, as transformers 5 reads them (its
// convert_rope_params_to_dict): a flat rope_parameters holds rope_theta, partial_rotary_factor and the scaling fields,
// and rope_scaling, when given, replaces it; keyed by layer type (Gemma 3), full_attention is the model's rope, updated
// by rope_scaling, and sliding_attention the local one. rope_parameters' rope_theta and partial_rotary_factor come
// before the top-level fields. The legacy spelling of a model gives the same HfConfig, but for the keys in messages.
std::optional<Error> read_rope_fields(const JsonValue& j, HfConfig& c) {
  Reader top{j, "", std::nullopt};
  const std::optional<double> local_base = top.number("rope_local_base_freq");
  if (top.error) return top.error;
  auto legacy = object_or_null(j, "rope_scaling", "");
  if (!legacy) return legacy.error();
  auto params = object_or_null(j, "rope_parameters", "");
  if (!params) return params.error();
  const bool by_layer = *params && ((*params)->find("full_attention") || (*params)->find("sliding_attention"));
  const JsonValue* full = nullptr;
  const JsonValue* sliding = nullptr;
  if (by_layer) {
    auto f = object_or_null(**params, "full_attention", "rope_parameters.");
    if (!f) return f.error();
    auto sl = object_or_null(**params, "sliding_attention", "rope_parameters.");
    if (!sl) return sl.error();
    full = *f;
    sliding = *sl;
  }
  JsonValue merged{};  // by layer type: full_attention's members, then rope_scaling's (find takes the last)
  const JsonValue* src = *legacy ? *legacy : *params;
  std::string key = *legacy ? "rope_scaling" : "rope_parameters";
  if (by_layer) {
    merged.kind = Kind::Object;
    for (const JsonValue* part : {full, *legacy})
      if (part) merged.object.insert(merged.object.end(), part->object.begin(), part->object.end());
    src = full || *legacy ? &merged : nullptr;
    key = full ? "rope_parameters.full_attention" : "rope_scaling";
  }
  if (src) {
    Reader s{*src, key + ".", std::nullopt};
    c.rope_scaling = read_scaling(s);
    c.scaling_key = key;
    if (auto theta = s.number("rope_theta")) {
      c.rope_theta = theta;
      c.theta_key = key + ".rope_theta";
    }
    if (auto partial = s.number("partial_rotary_factor")) c.partial_rotary_factor = partial;
    if (s.error) return s.error;
  }
  const std::string type = c.model_type.value_or("");
  if (by_layer || local_base || type == "gemma3" || type == "gemma3_text") {
    HfLocalRope local;
    if (local_base) local.rope_theta = *local_base;
    local.scaling_key = "rope_parameters.sliding_attention";
    if (sliding) {
      Reader s{*sliding, local.scaling_key + ".", std::nullopt};
      local.rope_scaling = read_scaling(s);
      if (auto theta = s.number("rope_theta")) {
        local.rope_theta = *theta;
        local.theta_key = local.scaling_key + ".rope_theta";
      }
      if (s.error) return s.error;
    }
    c.local = std::move(local);
  }
  return std::nullopt;
}

}  // namespace

Expected<HfConfig> hf_config_from_json(const JsonValue& j) {
  if (j.kind != Kind::Object) return bad_request(std::string("config must be a JSON object, got ") + type_word(j));
  // multimodal configs (Llava, Gemma 3, Mistral 3, ...) keep the language model's fields in text_config; a key that
  // is present counts even when its value is null
  const JsonValue* tc = j.find("text_config");
  if (tc && tc->kind == Kind::Object && !j.find("hidden_size") && !j.find("n_embd") && !j.find("dim") &&
      !j.find("head_dim")) {
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
  c.num_key_value_heads = r.integer("num_key_value_heads");
  c.rms_norm_eps = r.number("rms_norm_eps");
  c.layer_norm_eps = r.number("layer_norm_eps");
  if (!c.layer_norm_eps) c.layer_norm_eps = r.number("layer_norm_epsilon");
  if (!c.layer_norm_eps) c.layer_norm_eps = r.number("norm_epsilon");  // StarCoder2's
  c.max_position_embeddings = r.integer({"max_position_embeddings", "n_positions"});
  c.original_max_position_embeddings = r.integer("original_max_position_embeddings");
  c.rotary_dim = r.integer("rotary_dim");
  c.qk_rope_head_dim = r.integer("qk_rope_head_dim");
  c.partial_rotary_factor = r.number("partial_rotary_factor");
  c.rotary_pct = r.number("rotary_pct");
  c.rope_theta = r.number("rope_theta");
  c.rotary_emb_base = r.number("rotary_emb_base");
  c.layer_types = r.strings("layer_types");
  for (const char* key : {"hidden_activation", "hidden_act", "activation_function"})  // Gemma's own name first
    if (!c.hidden_act) c.hidden_act = r.string(key);
  c.query_pre_attn_scalar = r.number("query_pre_attn_scalar");
  c.attn_logit_softcapping = r.number("attn_logit_softcapping");
  c.final_logit_softcapping = r.number("final_logit_softcapping");
  c.sliding_window = r.integer("sliding_window");
  c.num_experts_per_tok = r.integer("num_experts_per_tok");
  c.use_parallel_residual = r.boolean("use_parallel_residual");
  c.sliding_window_pattern = r.integer("sliding_window_pattern");
  if (r.error) return *r.error;
  if (auto e = read_rope_fields(j, c)) return *e;
  return c;
}

Expected<HfConfig> parse_hf_config(std::string_view text) {
  auto j = parse_json(text);
  if (!j) return j.error();
  return hf_config_from_json(*j);
}

}  // namespace rv
