// libFuzzer target: text through parse_json (a parsed DOM, written out again, parses to the same DOM) and through
// parse_hf_config -> derive_model (positive finite inv_freq of rotary_dims/2 entries, for rope and Gemma 3's
// rope_local, or a BadRequest naming a field).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/json_value.hpp"
#include "core/models/hf_config.hpp"
#include "core/models/json_config.hpp"
#include "fuzz_check.hpp"

namespace {
using rv::JsonValue;
using Kind = JsonValue::Kind;

void write_string(const std::string& s, std::string& out) {
  out += '"';
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

// Integers as their exact decimal digits, other finite numbers with 17 significant digits and a '.' or exponent,
// so the integer flag and the double both survive.
void write_number(const JsonValue& v, std::string& out) {
  if (!std::isfinite(v.number)) {
    out += std::isnan(v.number) ? "NaN" : (v.number > 0 ? "Infinity" : "-Infinity");
    return;
  }
  char buf[400];
  std::snprintf(buf, sizeof buf, v.integer ? "%.0f" : "%.17g", v.number);
  out += buf;
  if (!v.integer && std::string_view(buf).find_first_of(".e") == std::string_view::npos) out += ".0";
}

void write_json(const JsonValue& v, std::string& out) {
  if (v.kind == Kind::Null) out += "null";
  if (v.kind == Kind::Boolean) out += v.boolean ? "true" : "false";
  if (v.kind == Kind::Number) write_number(v, out);
  if (v.kind == Kind::String) write_string(v.string, out);
  if (v.kind == Kind::Array) {
    out += '[';
    for (std::size_t i = 0; i < v.array.size(); ++i) {
      if (i) out += ',';
      write_json(v.array[i], out);
    }
    out += ']';
  }
  if (v.kind == Kind::Object) {
    out += '{';
    for (std::size_t i = 0; i < v.object.size(); ++i) {
      if (i) out += ',';
      write_string(v.object[i].first, out);
      out += ':';
      write_json(v.object[i].second, out);
    }
    out += '}';
  }
}

bool same_number(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

bool same_json(const JsonValue& a, const JsonValue& b) {
  if (a.kind != b.kind || a.boolean != b.boolean || a.integer != b.integer || !same_number(a.number, b.number) ||
      a.string != b.string || a.array.size() != b.array.size() || a.object.size() != b.object.size())
    return false;
  for (std::size_t i = 0; i < a.array.size(); ++i)
    if (!same_json(a.array[i], b.array[i])) return false;
  for (std::size_t i = 0; i < a.object.size(); ++i)
    if (a.object[i].first != b.object[i].first || !same_json(a.object[i].second, b.object[i].second)) return false;
  return true;
}

// Every parse error says where it is (or that the text is too long).
bool locates(const std::string& message) {
  return message.rfind("malformed JSON at line ", 0) == 0 || message.rfind("JSON text of ", 0) == 0 ||
         (message.rfind("JSON nests deeper than", 0) == 0 && message.find(" at line ") != std::string::npos);
}

bool names_a_field(const std::string& message) {
  if (message.rfind("config must be a JSON object", 0) == 0) return true;  // the whole config is the field
  static const char* const fields[] = {"model_type",
                                       "position_embedding_type",
                                       "hidden_size",
                                       "n_embd",
                                       "dim",
                                       "num_attention_heads",
                                       "n_head",
                                       "head_dim",
                                       "max_position_embeddings",
                                       "n_positions",
                                       "rotary_dim",
                                       "qk_rope_head_dim",
                                       "partial_rotary_factor",
                                       "rotary_pct",
                                       "rope_theta",
                                       "rotary_emb_base",
                                       "rope_scaling",
                                       "rope_type",
                                       "seq_len",
                                       "text_config",
                                       "num_key_value_heads",
                                       "rms_norm_eps",
                                       "layer_norm_eps",
                                       "layer_norm_epsilon",
                                       "rope_parameters",
                                       "rope_local_base_freq",
                                       "layer_types",
                                       "sliding_window_pattern",
                                       "hidden_act",
                                       "hidden_activation",
                                       "activation_function",
                                       "query_pre_attn_scalar",
                                       "attn_logit_softcapping",
                                       "final_logit_softcapping",
                                       "sliding_window",
                                       "num_experts_per_tok",
                                       "use_parallel_residual",
                                       "norm_epsilon"};
  for (const char* f : fields)
    if (message.find(f) != std::string::npos) return true;
  return false;
}

void check_failure(const rv::Error& e) {
  RV_FUZZ_CHECK(e.type == "BadRequest");
  RV_FUZZ_CHECK(names_a_field(e.message));
}

void check_rope(const rv::HfConfig& c, const rv::RopeModel& r);

void check_derived(const rv::HfConfig& c, std::optional<double> seq_len) {
  const rv::Expected<rv::ModelInfo> m = rv::derive_model(c, seq_len);
  if (!m) return check_failure(m.error());
  RV_FUZZ_CHECK(m->rope.has_value() != m->absolute.has_value());
  if (m->absolute) {
    const rv::AbsoluteModel& a = *m->absolute;
    RV_FUZZ_CHECK(a.max_position > 0 && a.d > 0 && a.parameters / a.d == a.max_position);
    return;
  }
  RV_FUZZ_CHECK(!m->rope_local || m->rope_local->rotary_dims == m->rope->rotary_dims);
  for (const std::optional<rv::RopeModel>& rope : {m->rope, m->rope_local})
    if (rope) check_rope(c, *rope);
}

void check_rope(const rv::HfConfig& c, const rv::RopeModel& r) {
  // MLA (DeepSeek): qk_rope_head_dim is a width of its own, and may exceed hidden_size / heads (V3: 64 > 56).
  const bool mla = c.qk_rope_head_dim && !c.partial_rotary_factor && !c.rotary_pct && !c.rotary_dim;
  RV_FUZZ_CHECK(r.head_dim > 0 && r.rotary_dims > 0 && r.rotary_dims % 2 == 0 && (mla || r.rotary_dims <= r.head_dim));
  RV_FUZZ_CHECK(std::isfinite(r.base) && r.base > 1.0);
  RV_FUZZ_CHECK(r.inv_freq.size() == r.rotary_dims / 2);
  for (Eigen::Index i = 0; i < r.inv_freq.size(); ++i)
    RV_FUZZ_CHECK(std::isfinite(r.inv_freq[i]) && r.inv_freq[i] > 0.0);
  RV_FUZZ_CHECK(std::isfinite(r.attention_factor) && r.attention_factor >= 0.0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const rv::Expected<JsonValue> j = rv::parse_json(text);
  const rv::Expected<rv::HfConfig> c = rv::parse_hf_config(text);
  if (!j) {  // not JSON (or over the size/depth limits): a BadRequest saying where, the same from both readers
    RV_FUZZ_CHECK(j.error().type == "BadRequest" && locates(j.error().message));
    RV_FUZZ_CHECK(!c && c.error().message == j.error().message);
    return 0;
  }
  std::string written;
  write_json(*j, written);
  const rv::Expected<JsonValue> again = rv::parse_json(written, written.size());  // 0.1 is written longer
  RV_FUZZ_CHECK(again && same_json(*j, *again));
  if (!c) {
    check_failure(c.error());
    return 0;
  }
  check_derived(*c, std::nullopt);
  check_derived(*c, 131072.0);  // dynamic and longrope depend on the current length
  check_derived(*c, 1.0);
  return 0;
}
