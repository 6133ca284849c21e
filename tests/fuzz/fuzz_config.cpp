// libFuzzer target: a Hugging Face config.json through parse_json_text -> hf_config_from_json -> derive_model.
// Success: positive finite inv_freq of rotary_dims/2 entries (or a learned table); failure: a BadRequest naming a field
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/hf_config.hpp"
#include "core/json_config.hpp"
#include "fuzz_check.hpp"

namespace {

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
                                       "text_config"};
  for (const char* f : fields)
    if (message.find(f) != std::string::npos) return true;
  return false;
}

void check_failure(const rv::Error& e) {
  RV_FUZZ_CHECK(e.type == "BadRequest");
  RV_FUZZ_CHECK(names_a_field(e.message));
}

void check_derived(const rv::HfConfig& c, std::optional<double> seq_len) {
  const rv::Expected<rv::ModelInfo> m = rv::derive_model(c, seq_len);
  if (!m) return check_failure(m.error());
  RV_FUZZ_CHECK(m->rope.has_value() != m->absolute.has_value());
  if (m->absolute) {
    const rv::AbsoluteModel& a = *m->absolute;
    RV_FUZZ_CHECK(a.max_position > 0 && a.d > 0 && a.parameters / a.d == a.max_position);
    return;
  }
  const rv::RopeModel& r = *m->rope;
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
  const auto j = rv::parse_json_text(text);
  if (!j) {  // not JSON (or over the size/depth limits): a BadRequest with the parser's message
    RV_FUZZ_CHECK(j.error().type == "BadRequest" && !j.error().message.empty());
    return 0;
  }
  const rv::Expected<rv::HfConfig> c = rv::hf_config_from_json(*j);
  if (!c) {
    check_failure(c.error());
    return 0;
  }
  check_derived(*c, std::nullopt);
  check_derived(*c, 131072.0);  // dynamic and longrope depend on the current length
  check_derived(*c, 1.0);
  return 0;
}
