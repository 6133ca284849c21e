// Hugging Face config -> RoPE parameters (or learned-table size), following transformers' modeling_rope_utils.
#include "core/models/hf_config.hpp"

#include <cmath>
#include <string>

#include "core/base/format.hpp"
#include "core/rope/scaling.hpp"

namespace rv {
namespace {

std::string num(double x) {
  return format_number(x);
}
std::string num(long long x) {
  return std::to_string(x);
}

// An optional integer field in [lo, hi]; absent stays absent.
std::optional<Error> check_range(const std::optional<long long>& v, const char* name, long long lo, long long hi) {
  if (v && (*v < lo || *v > hi))
    return bad_request(std::string(name) + " must be an integer in [" + num(lo) + ", " + num(hi) + "], got " + num(*v));
  return std::nullopt;
}

bool finite_positive(double x) {
  return std::isfinite(x) && x > 0.0;
}

std::optional<Error> check_positive(const std::optional<double>& v, const std::string& name) {
  if (v && !finite_positive(*v)) return bad_request(name + " must be a finite number > 0, got " + num(*v));
  return std::nullopt;
}

struct Heads {
  int head_dim = 0, rotary_dims = 0;
};

Expected<Heads> derive_heads(const HfConfig& c) {
  if (auto e = check_range(c.head_dim, "head_dim", 1, kMaxHeadDim)) return *e;
  if (auto e = check_range(c.hidden_size, "hidden_size", 1, kMaxHiddenSize)) return *e;
  if (auto e = check_range(c.num_attention_heads, "num_attention_heads", 1, kMaxHeads)) return *e;
  Heads h;
  if (c.head_dim) {
    h.head_dim = static_cast<int>(*c.head_dim);
  } else {
    if (!c.hidden_size) return bad_request("missing hidden_size (or n_embd): needed for head_dim");
    if (!c.num_attention_heads)
      return bad_request("missing num_attention_heads (or n_head): needed for head_dim = hidden_size / heads");
    if (*c.hidden_size % *c.num_attention_heads != 0)
      return bad_request("hidden_size " + num(*c.hidden_size) + " is not divisible by num_attention_heads " +
                         num(*c.num_attention_heads) + " (give head_dim)");
    const long long hd = *c.hidden_size / *c.num_attention_heads;
    if (hd > kMaxHeadDim) return bad_request("head_dim = hidden_size / num_attention_heads is over 65536");
    h.head_dim = static_cast<int>(hd);
  }
  // rotary part: int(head_dim * partial_rotary_factor) (or rotary_pct), else rotary_dim, else qk_rope_head_dim
  std::string from = "head_dim";
  long long r = h.head_dim;
  const std::optional<double>& frac = c.partial_rotary_factor ? c.partial_rotary_factor : c.rotary_pct;
  if (frac) {
    from = c.partial_rotary_factor ? "partial_rotary_factor" : "rotary_pct";
    if (!(std::isfinite(*frac) && *frac > 0.0 && *frac <= 1.0))
      return bad_request(from + " must be a number in (0, 1], got " + num(*frac));
    r = static_cast<long long>(h.head_dim * *frac);  // Python's int(): truncation
    from += " (int(" + num(static_cast<long long>(h.head_dim)) + " * " + num(*frac) + "))";
  } else if (c.rotary_dim) {
    if (auto e = check_range(c.rotary_dim, "rotary_dim", 1, h.head_dim)) return *e;
    r = *c.rotary_dim;
    from = "rotary_dim";
  } else if (c.qk_rope_head_dim) {
    if (auto e = check_range(c.qk_rope_head_dim, "qk_rope_head_dim", 1, kMaxHeadDim)) return *e;
    r = *c.qk_rope_head_dim;
    from = "qk_rope_head_dim";
  }
  if (r < 2 || r % 2 != 0)
    return bad_request("rotary dims from " + from + " must be a positive even number, got " + num(r));
  h.rotary_dims = static_cast<int>(r);
  return h;
}

Expected<double> derive_base(const HfConfig& c) {
  const std::string name = c.rope_theta ? c.theta_key : "rotary_emb_base";
  const double base = c.rope_theta ? *c.rope_theta : c.rotary_emb_base.value_or(10000.0);
  if (!(std::isfinite(base) && base > 1.0)) return bad_request(name + " must be a finite number > 1, got " + num(base));
  return base;
}

// rope_scaling.rope_type, else legacy rope_scaling.type, else default.
Expected<ScalingType> derive_type(const HfConfig& c, std::string& name) {
  name = "default";
  if (!c.rope_scaling) return ScalingType::None;
  const HfRopeScaling& s = *c.rope_scaling;
  const std::string field = c.scaling_key + (s.rope_type ? ".rope_type" : ".type");
  const std::optional<std::string>& t = s.rope_type ? s.rope_type : s.type;
  if (!t) return ScalingType::None;
  // Qwen2-VL's "mrope" sections the rotary dims by modality; transformers' config turns it into default frequencies
  auto parsed = *t == "mrope" ? std::optional<ScalingType>(ScalingType::None) : parse_scaling(*t);
  if (!parsed || *t == "none")
    return bad_request(field + " \"" + *t +
                       "\" is not one of default, linear, dynamic, yarn, longrope (su), llama3");
  name = *parsed == ScalingType::None ? "default" : scaling_name(*parsed);
  return *parsed;
}

std::optional<Error> check_factor_list(const std::optional<std::vector<double>>& f, const std::string& name, int half) {
  if (!f) return bad_request("missing " + name + " (longrope needs short_factor and long_factor)");
  if (static_cast<int>(f->size()) != half)
    return bad_request(name + " must have rotary_dims/2 = " + num(static_cast<long long>(half)) +
                       " entries, got " + num(static_cast<long long>(f->size())));
  for (double x : *f)
    if (!finite_positive(x)) return bad_request(name + " must contain finite numbers > 0, got " + num(x));
  return std::nullopt;
}

}  // namespace

bool is_learned_position_model(const HfConfig& c) {
  if (c.position_embedding_type && *c.position_embedding_type == "absolute") return true;
  if (!c.model_type) return false;
  const std::string& t = *c.model_type;
  return t == "gpt2" || t == "gpt_bigcode" || t == "bert" || t == "roberta" || t == "distilbert" || t == "opt";
}

Expected<ModelInfo> derive_model(const HfConfig& c, std::optional<double> seq_len) {
  if (auto e = check_range(c.max_position_embeddings, "max_position_embeddings", 1, kMaxPositions)) return *e;
  if (auto e = check_range(c.original_max_position_embeddings, "original_max_position_embeddings", 1, kMaxPositions))
    return *e;
  if (seq_len && !(std::isfinite(*seq_len) && *seq_len >= 0 && *seq_len <= static_cast<double>(kMaxPositions)))
    return bad_request("seq_len must be a number in [0, 2^40], got " + num(*seq_len));
  ModelInfo out;
  if (is_learned_position_model(c)) {
    if (auto e = check_range(c.hidden_size, "hidden_size", 1, kMaxHiddenSize)) return *e;
    if (!c.hidden_size) return bad_request("missing hidden_size (or n_embd): the learned table's width");
    if (!c.max_position_embeddings)
      return bad_request("missing max_position_embeddings (or n_positions): the learned table's rows");
    out.absolute =
        AbsoluteModel{*c.max_position_embeddings, *c.hidden_size, *c.max_position_embeddings * *c.hidden_size};
    return out;
  }

  auto heads = derive_heads(c);
  if (!heads) return heads.error();
  auto base = derive_base(c);
  if (!base) return base.error();
  std::string type_name;
  auto type = derive_type(c, type_name);
  if (!type) return type.error();

  RopeModel m;
  m.head_dim = heads->head_dim;
  m.rotary_dims = heads->rotary_dims;
  m.base = *base;
  m.rope_type = type_name;
  const std::string mt = c.model_type.value_or("");
  m.pairing = (mt == "gptj" || mt == "deepseek_v2" || mt == "deepseek_v3") ? Pairing::Interleaved : Pairing::HalfSplit;
  if (c.pairing) m.pairing = *c.pairing;
  m.max_position_embeddings = c.max_position_embeddings;

  const HfRopeScaling none;
  const HfRopeScaling& rs = c.rope_scaling ? *c.rope_scaling : none;
  const std::string key = c.scaling_key + ".";  // rope_scaling. or rope_parameters. (...), as the config spelt it
  if (auto e = check_positive(rs.factor, key + "factor")) return *e;
  if (auto e = check_positive(rs.original_max_position_embeddings, key + "original_max_position_embeddings")) return *e;
  if (rs.original_max_position_embeddings && *rs.original_max_position_embeddings > kMaxPositions)
    return bad_request(key + "original_max_position_embeddings is over 2^40");
  if (auto e = check_positive(rs.beta_fast, key + "beta_fast")) return *e;
  if (auto e = check_positive(rs.beta_slow, key + "beta_slow")) return *e;
  if (auto e = check_positive(rs.low_freq_factor, key + "low_freq_factor")) return *e;
  if (auto e = check_positive(rs.high_freq_factor, key + "high_freq_factor")) return *e;
  if (rs.attention_factor && !(std::isfinite(*rs.attention_factor) && *rs.attention_factor >= 0))
    return bad_request(key + "attention_factor must be a finite number >= 0, got " + num(*rs.attention_factor));
  for (auto [v, name] : {std::pair{&rs.mscale, "mscale"}, {&rs.mscale_all_dim, "mscale_all_dim"}})
    if (*v && !std::isfinite(**v)) return bad_request(key + name + " must be finite");

  RopeScaling s;
  s.type = *type;
  s.seq_len = seq_len.value_or(0.0);
  const auto need_factor = [&]() -> std::optional<Error> {
    if (!rs.factor) return bad_request("missing " + key + "factor (needed by rope_type " + type_name + ")");
    s.factor = *rs.factor;
    return std::nullopt;
  };
  const auto need_max = [&](const std::string& why) -> std::optional<Error> {
    if (!c.max_position_embeddings)
      return bad_request("missing max_position_embeddings (or n_positions): needed by " + why);
    return std::nullopt;
  };
  const std::optional<double> top_original =
      c.original_max_position_embeddings
          ? std::optional<double>(static_cast<double>(*c.original_max_position_embeddings))
          : std::nullopt;
  const std::optional<double> max_pos =
      c.max_position_embeddings ? std::optional<double>(static_cast<double>(*c.max_position_embeddings)) : std::nullopt;
  std::optional<double> original = rs.original_max_position_embeddings ? rs.original_max_position_embeddings
                                   : top_original                      ? top_original
                                                                       : max_pos;
  switch (*type) {
    case ScalingType::None:
      break;
    case ScalingType::Linear:
      if (auto e = need_factor()) return *e;
      break;
    case ScalingType::Dynamic:
      if (auto e = need_factor()) return *e;
      if (auto e = need_max("rope_type dynamic")) return *e;
      if (m.rotary_dims < 4) return bad_request("rope_type dynamic needs rotary dims >= 4 (exponent r/(r-2))");
      s.max_position_embeddings = *max_pos;
      break;
    case ScalingType::Yarn:
      if (auto e = need_factor()) return *e;
      if (!rs.original_max_position_embeddings)
        if (auto e = need_max("rope_type yarn without " + key + "original_max_position_embeddings")) return *e;
      original = rs.original_max_position_embeddings ? rs.original_max_position_embeddings : max_pos;
      s.original_max_position_embeddings = *original;
      s.beta_fast = rs.beta_fast.value_or(32.0);
      s.beta_slow = rs.beta_slow.value_or(1.0);
      s.attention_factor = rs.attention_factor;
      s.mscale = rs.mscale;
      s.mscale_all_dim = rs.mscale_all_dim;
      s.truncate = rs.truncate.value_or(true);
      break;
    case ScalingType::Llama3:
      if (auto e = need_factor()) return *e;
      if (!rs.original_max_position_embeddings)
        return bad_request("missing " + key + "original_max_position_embeddings (needed by rope_type llama3)");
      s.original_max_position_embeddings = *rs.original_max_position_embeddings;
      s.low_freq_factor = rs.low_freq_factor.value_or(1.0);
      s.high_freq_factor = rs.high_freq_factor.value_or(4.0);
      if (!(s.high_freq_factor > s.low_freq_factor))
        return bad_request(key + "high_freq_factor must be greater than " + key + "low_freq_factor");
      break;
    case ScalingType::Longrope: {
      if (auto e = need_max("rope_type longrope")) return *e;
      original = top_original                          ? top_original
                 : rs.original_max_position_embeddings ? rs.original_max_position_embeddings
                                                       : max_pos;
      if (auto e = check_factor_list(rs.short_factor, key + "short_factor", m.rotary_dims / 2)) return *e;
      if (auto e = check_factor_list(rs.long_factor, key + "long_factor", m.rotary_dims / 2)) return *e;
      if (!rs.attention_factor && *max_pos > *original && !(*original > 1.0))
        return bad_request("original_max_position_embeddings must be > 1 for longrope's attention factor");
      s.original_max_position_embeddings = *original;
      s.max_position_embeddings = *max_pos;
      s.short_factor = *rs.short_factor;
      s.long_factor = *rs.long_factor;
      s.attention_factor = rs.attention_factor;
      break;
    }
  }
  auto f = rope_scaled_inv_freq(m.rotary_dims, m.base, s);
  if (!f) return f.error();
  // A factor that passes its own checks can still overflow the frequencies (llama3 with factor 8e-320
  // divides theta by a subnormal): found by fuzz_config.
  if (!(f->inv_freq.array().isFinite().all() && (f->inv_freq.array() > 0.0).all()) ||
      !std::isfinite(f->attention_factor))
    return bad_request(key + "factor " + num(s.factor) +
                       " makes the scaled frequencies or the attention factor non-finite");
  m.inv_freq = f->inv_freq;
  m.attention_factor = f->attention_factor;
  if (*type == ScalingType::Longrope)
    m.factor = *original > 0 && *max_pos > *original ? *max_pos / *original : rs.factor.value_or(1.0);
  else if (*type != ScalingType::None)
    m.factor = s.factor;
  if (original) m.original_max_position_embeddings = static_cast<long long>(*original);
  out.rope = std::move(m);
  if (c.local) {  // Gemma 3's sliding-attention layers: the same model with their own base and scaling
    HfConfig local = c;
    local.rope_theta = c.local->rope_theta;
    local.rope_scaling = c.local->rope_scaling;
    local.theta_key = c.local->theta_key;
    local.scaling_key = c.local->scaling_key;
    local.local.reset();
    auto l = derive_model(local, seq_len);
    if (!l) return l.error();
    out.rope_local = std::move(l->rope);
  }
  return out;
}

bool is_local_layer(const HfConfig& c, int layer) {
  if (!c.local || layer < 0) return false;
  if (c.layer_types)
    return std::size_t(layer) < c.layer_types->size() && (*c.layer_types)[std::size_t(layer)] == "sliding_attention";
  const long long pattern = c.sliding_window_pattern.value_or(6);
  return pattern > 0 && (layer + 1) % pattern != 0;
}

const std::optional<RopeModel>& layer_rope(const HfConfig& c, const ModelInfo& info, int layer) {
  return is_local_layer(c, layer) && info.rope_local ? info.rope_local : info.rope;
}

long long model_width(const HfConfig& c, const ModelInfo& info) {
  if (info.absolute) return info.absolute->d;
  const long long head_dim = info.rope ? info.rope->head_dim : 0;
  return c.hidden_size.value_or(c.num_attention_heads.value_or(1) * head_dim);
}

}  // namespace rv
