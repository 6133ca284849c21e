// The model types' attention layouts and the readers over them (core/weights/attention_layout.hpp).
#include "core/weights/attention_layout.hpp"

namespace rv {
namespace {

// The families whose attention the analyses read: RoPE (no learned table), one input norm, q/k norms per head.
bool analysable(const ModelFamily& f) {
  return !*f.positions && *f.attn_norm && f.qk_norm != QkNorm::Whole && f.qkv != QkvLayout::Gpt2;
}

}  // namespace

std::optional<AttentionLayout> attention_layout(const std::string& model_type) {
  const ModelFamily* f = model_family(model_type);
  if (!f || !analysable(*f)) return std::nullopt;
  const std::string layer = f->layer;
  AttentionLayout a;
  a.q = layer + f->q + ".weight";
  if (f->qkv == QkvLayout::Separate) a.k = layer + f->k + ".weight";
  a.norm = layer + f->attn_norm + ".weight";
  if (f->qk_norm == QkNorm::PerHead) {
    a.q_norm = layer + kQNormName;
    a.k_norm = layer + kKNormName;
  }
  a.fused = f->qkv;
  a.gemma = f->norm == NormKind::RmsPlusOne;
  a.layer_norm = f->norm == NormKind::Layer;
  a.embed = f->embed;
  a.eps = f->eps;
  return a;
}

std::string attention_layout_types() {
  std::string known;
  for (const ModelFamily* f : model_families())
    if (analysable(*f)) known += std::string(known.empty() ? "" : ", ") + f->type;
  return known;
}

std::string at_layer(std::string_view pattern, int l) {
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
  std::optional<AttentionLayout> layout = attention_layout(m.type);
  if (!layout)
    return bad_request(std::string(op) + " does not know model_type \"" + m.type + "\" (it knows " +
                       attention_layout_types() + ")");
  Expected<ModelInfo> info = derive_model(config);
  if (!info) return bad_request("config: " + info.error().message);
  if (!info->rope) return bad_request("config: model_type \"" + m.type + "\" has no RoPE");
  if (!config.num_attention_heads) return bad_request("config: missing num_attention_heads");
  m.layout = std::move(*layout);
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
