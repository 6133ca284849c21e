// Reads a Hugging Face config.json into HfConfig: types checked, legacy and transformers 5 spellings folded,
// text_config followed.
#include "core/models/json_config.hpp"
#include "core/base/constants.hpp"
#include "core/base/json_fields.hpp"

#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace rv {
namespace {
using Kind = JsonValue::Kind;

constexpr std::size_t kMaxEntries = 65536;  // layer_types, short_factor, long_factor

// config.json's fields of one object (prefix e.g. "rope_scaling."), named bare in messages.
struct Reader : FieldReader {
  Reader(const JsonValue& j, std::string prefix) : FieldReader(j, std::move(prefix), Names::bare) {}
  // The first of several spellings that is present (e.g. hidden_size, then n_embd, then dim).
  std::optional<long long> first_integer(std::initializer_list<const char*> keys) {
    for (const char* key : keys)
      if (value(key) && value(key)->kind != Kind::Null) return optional_integer(key);
    return std::nullopt;
  }
};

// The scaling fields of rope_scaling, or of a transformers 5 rope_parameters object, read by s.
HfRopeScaling read_scaling(Reader& s) {
  HfRopeScaling h;
  h.rope_type = s.optional_string("rope_type");
  h.type = s.optional_string("type");
  h.factor = s.optional_number("factor");
  h.original_max_position_embeddings = s.optional_number("original_max_position_embeddings");
  h.beta_fast = s.optional_number("beta_fast");
  h.beta_slow = s.optional_number("beta_slow");
  h.attention_factor = s.optional_number("attention_factor");
  h.mscale = s.optional_number("mscale");
  h.mscale_all_dim = s.optional_number("mscale_all_dim");
  h.low_freq_factor = s.optional_number("low_freq_factor");
  h.high_freq_factor = s.optional_number("high_freq_factor");
  h.truncate = s.optional_boolean("truncate");
  h.short_factor = s.optional_numbers("short_factor", kMaxEntries);
  h.long_factor = s.optional_numbers("long_factor", kMaxEntries);
  return h;
}

// A member that must be an object when given: nullptr when absent or null, else a BadRequest naming it.
Expected<const JsonValue*> object_or_null(const JsonValue& j, const char* key, const std::string& prefix) {
  Reader r{j, prefix};
  const JsonValue* v = r.object(key);
  if (r.error) return *r.error;
  return v;
}

// rope_scaling, rope_parameters (transformers 5) and rope_local_base_freq into c, as transformers 5 reads them (its
// convert_rope_params_to_dict): a flat rope_parameters holds rope_theta, partial_rotary_factor and the scaling fields,
// and rope_scaling, when given, replaces it; keyed by layer type (Gemma 3), full_attention is the model's rope, updated
// by rope_scaling, and sliding_attention the local one. rope_parameters' rope_theta and partial_rotary_factor come
// before the top-level fields. The legacy spelling of a model gives the same HfConfig, but for the keys in messages.
std::optional<Error> read_rope_fields(const JsonValue& j, HfConfig& c) {
  Reader top{j, ""};
  const std::optional<double> local_base = top.optional_number("rope_local_base_freq");
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
    Reader s{*src, key + "."};
    c.rope_scaling = read_scaling(s);
    c.scaling_key = key;
    if (auto theta = s.optional_number("rope_theta")) {
      c.rope_theta = theta;
      c.theta_key = key + ".rope_theta";
    }
    if (auto partial = s.optional_number("partial_rotary_factor")) c.partial_rotary_factor = partial;
    if (s.error) return s.error;
  }
  const std::string type = c.model_type.value_or("");
  if (by_layer || local_base || type == "gemma3" || type == "gemma3_text") {
    HfLocalRope local;
    if (local_base) local.rope_theta = *local_base;
    local.scaling_key = "rope_parameters.sliding_attention";
    if (sliding) {
      Reader s{*sliding, local.scaling_key + "."};
      local.rope_scaling = read_scaling(s);
      if (auto theta = s.optional_number("rope_theta")) {
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
  if (j.kind != Kind::Object) return bad_request(std::string("config must be a JSON object, got ") + json_kind_word(j));
  // multimodal configs (Llava, Gemma 3, Mistral 3, ...) keep the language model's fields in text_config; a key that
  // is present counts even when its value is null
  const JsonValue* tc = j.find("text_config");
  if (tc && tc->kind == Kind::Object && !j.find("hidden_size") && !j.find("n_embd") && !j.find("dim") &&
      !j.find("head_dim")) {
    auto inner = hf_config_from_json(*tc);
    if (!inner) return bad_request("text_config." + inner.error().message);
    return inner;
  }
  Reader r{j, ""};
  HfConfig c;
  c.model_type = r.optional_string("model_type");
  c.position_embedding_type = r.optional_string("position_embedding_type");
  c.hidden_size = r.first_integer({"hidden_size", "n_embd", "dim"});  // dim, n_heads: DistilBERT's attribute map
  c.num_attention_heads = r.first_integer({"num_attention_heads", "n_head", "n_heads"});
  c.head_dim = r.optional_integer("head_dim");
  c.num_key_value_heads = r.optional_integer("num_key_value_heads");
  c.rms_norm_eps = r.optional_number("rms_norm_eps");
  c.layer_norm_eps = r.optional_number("layer_norm_eps");
  if (!c.layer_norm_eps) c.layer_norm_eps = r.optional_number("layer_norm_epsilon");
  if (!c.layer_norm_eps) c.layer_norm_eps = r.optional_number("norm_epsilon");  // StarCoder2's
  c.max_position_embeddings = r.first_integer({"max_position_embeddings", "n_positions"});
  c.original_max_position_embeddings = r.optional_integer("original_max_position_embeddings");
  c.rotary_dim = r.optional_integer("rotary_dim");
  c.qk_rope_head_dim = r.optional_integer("qk_rope_head_dim");
  c.partial_rotary_factor = r.optional_number("partial_rotary_factor");
  c.rotary_pct = r.optional_number("rotary_pct");
  c.rope_theta = r.optional_number("rope_theta");
  c.rotary_emb_base = r.optional_number("rotary_emb_base");
  c.layer_types = r.optional_strings("layer_types", kMaxEntries);
  for (const char* key : {"hidden_activation", "hidden_act", "activation_function"})  // Gemma's own name first
    if (!c.hidden_act) c.hidden_act = r.optional_string(key);
  c.query_pre_attn_scalar = r.optional_number("query_pre_attn_scalar");
  c.attn_logit_softcapping = r.optional_number("attn_logit_softcapping");
  c.final_logit_softcapping = r.optional_number("final_logit_softcapping");
  c.sliding_window = r.optional_integer("sliding_window");
  c.num_experts_per_tok = r.optional_integer("num_experts_per_tok");
  c.use_parallel_residual = r.optional_boolean("use_parallel_residual");
  c.sliding_window_pattern = r.optional_integer("sliding_window_pattern");
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
