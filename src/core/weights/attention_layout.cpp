// The model types' attention layouts and the readers over them (core/weights/attention_layout.hpp).
#include "core/weights/attention_layout.hpp"

namespace rv {
namespace {

constexpr const char* kQ = "model.layers.{l}.self_attn.q_proj.weight";
constexpr const char* kK = "model.layers.{l}.self_attn.k_proj.weight";
constexpr const char* kNorm = "model.layers.{l}.input_layernorm.weight";
constexpr const char* kQNorm = "model.layers.{l}.self_attn.q_norm.weight";
constexpr const char* kKNorm = "model.layers.{l}.self_attn.k_norm.weight";

const AttentionLayout kLayouts[] = {
    {"llama", kQ, kK, kNorm},
    {"mistral", kQ, kK, kNorm},
    {"mixtral", kQ, kK, kNorm, "", "", FusedQkv::None, false, false, "model.embed_tokens.weight", 1e-5},
    {"qwen2", kQ, kK, kNorm},
    {"qwen3", kQ, kK, kNorm, kQNorm, kKNorm},
    {"gemma", kQ, kK, kNorm, "", "", FusedQkv::None, true},
    {"gemma2", kQ, kK, kNorm, "", "", FusedQkv::None, true},
    {"gemma3", kQ, kK, kNorm, kQNorm, kKNorm, FusedQkv::None, true},
    {"gemma3_text", kQ, kK, kNorm, kQNorm, kKNorm, FusedQkv::None, true},  // Gemma3ForCausalLM's config
    {"phi", kQ, kK, kNorm, "", "", FusedQkv::None, false, true, "model.embed_tokens.weight", 1e-5},
    {"stablelm", kQ, kK, kNorm, "", "", FusedQkv::None, false, true, "model.embed_tokens.weight", 1e-5},
    {"phi3", "model.layers.{l}.self_attn.qkv_proj.weight", "", kNorm, "", "", FusedQkv::Phi3, false, false,
     "model.embed_tokens.weight", 1e-5},
    {"gpt_neox", "gpt_neox.layers.{l}.attention.query_key_value.weight", "",
     "gpt_neox.layers.{l}.input_layernorm.weight", "", "", FusedQkv::NeoX, false, true, "gpt_neox.embed_in.weight", 1e-5},
    {"gptj", "transformer.h.{l}.attn.q_proj.weight", "transformer.h.{l}.attn.k_proj.weight",
     "transformer.h.{l}.ln_1.weight", "", "", FusedQkv::None, false, true, "transformer.wte.weight", 1e-5},
};

}  // namespace

const AttentionLayout* attention_layout(const std::string& model_type) {
  for (const AttentionLayout& l : kLayouts)
    if (model_type == l.type) return &l;
  return nullptr;
}

std::string attention_layout_types() {
  std::string known;
  for (const AttentionLayout& l : kLayouts) known += std::string(known.empty() ? "" : ", ") + l.type;
  return known;
}

std::string at_layer(const char* pattern, int l) {
  std::string s(pattern);
  const std::size_t at = s.find("{l}");
  return at == std::string::npos ? s : s.replace(at, 3, std::to_string(l));
}

std::string bias_of(const std::string& weight) {
  const std::string tail = ".weight";
  return weight.size() > tail.size() && weight.compare(weight.size() - tail.size(), tail.size(), tail) == 0
             ? weight.substr(0, weight.size() - tail.size()) + ".bias"
             : weight + ".bias";
}

Expected<AttentionModel> attention_model(const HfConfig& config, const char* op) {
  AttentionModel m;
  m.type = config.model_type.value_or("");
  m.layout = attention_layout(m.type);
  if (!m.layout)
    return bad_request(std::string(op) + " does not know model_type \"" + m.type + "\" (it knows " +
                       attention_layout_types() + ")");
  Expected<ModelInfo> info = derive_model(config);
  if (!info) return bad_request("config: " + info.error().message);
  if (!info->rope) return bad_request("config: model_type \"" + m.type + "\" has no RoPE");
  if (!config.num_attention_heads) return bad_request("config: missing num_attention_heads");
  m.config = config;
  m.rope_local = info->rope_local;
  m.rope = *info->rope;
  m.heads = int(*config.num_attention_heads);
  return m;
}

Expected<RowMatrixXd> read_named(Checkpoint& c, const std::string& name) {
  const TensorInfo* t = c.find(name);
  if (!t) return bad_request("the checkpoint holds no tensor \"" + name + "\"");
  return c.read(*t);
}

Expected<Eigen::VectorXd> read_vector(Checkpoint& c, const std::string& name, Eigen::Index size, bool plus_one) {
  Expected<RowMatrixXd> m = read_named(c, name);
  if (!m) return m.error();
  if (m->size() != size)
    return bad_request("tensor \"" + name + "\" has " + std::to_string(m->size()) + " entries, expected " +
                       std::to_string(size));
  Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(m->data(), size);
  if (plus_one) v.array() += 1.0;
  return v;
}

}  // namespace rv
