// The forward pass (core/infer/forward.hpp): embeddings, each layer read, run and let go, the final norm and the head
// a block of rows at a time.
#include "core/infer/forward.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/matmul.hpp"
#include "core/infer/family.hpp"
#include "core/infer/layer_ops.hpp"

namespace rv {
namespace {

using detail::matmul_nt;

constexpr Eigen::Index kHeadRows = 64;  // rows of hidden states through the head at a time

std::string at(const char* pattern, int l) {
  std::string s = pattern;
  const std::size_t i = s.find("{l}");
  return i == std::string::npos ? s : s.replace(i, 3, std::to_string(l));
}

// The model's sizes, from the config and the embedding's shape.
struct Dims {
  long long vocab = 0, d = 0;
  int heads = 0, kv_heads = 0, head_dim = 0, layers = 0;
  float eps = 1e-6f;
  InferAct act = InferAct::Silu;
};

Expected<Dims> dims_of(const HfConfig& config, const InferFamily& f, const TensorInfo& embed, const ModelInfo& info,
                       Checkpoint& c, const char* layer_probe) {
  Dims d;
  if (embed.shape.size() != 2) return bad_request("tensor \"" + embed.name + "\" is not a matrix");
  d.vocab = embed.shape[0];
  d.d = embed.shape[1];
  if (config.hidden_size && *config.hidden_size != d.d)
    return bad_request("config: hidden_size " + std::to_string(*config.hidden_size) + ", but \"" + embed.name +
                       "\" is " + std::to_string(d.d) + " wide");
  if (!config.num_attention_heads) return bad_request("config: missing num_attention_heads (the family needs it)");
  d.heads = int(*config.num_attention_heads);
  d.kv_heads = int(config.num_key_value_heads.value_or(d.heads));
  if (d.kv_heads < 1 || d.heads % d.kv_heads != 0)
    return bad_request("config: num_key_value_heads " + std::to_string(d.kv_heads) + " does not divide " +
                       std::to_string(d.heads) + " heads");
  d.head_dim = info.rope ? info.rope->head_dim : int(d.d / d.heads);
  const std::optional<double> eps = f.norm == InferNorm::Layer ? config.layer_norm_eps : config.rms_norm_eps;
  if (eps) d.eps = float(*eps);
  if (f.norm == InferNorm::Layer && !eps) d.eps = 1e-5f;  // GPT-2's layer_norm_epsilon default
  d.act = f.act;
  if (config.hidden_act && !parse_activation(*config.hidden_act, d.act))
    return bad_request("config: hidden_act \"" + *config.hidden_act + "\" is not one the forward pass runs (silu, "
                       "gelu, gelu_new, gelu_pytorch_tanh)");
  while (c.find(at(layer_probe, d.layers))) ++d.layers;
  if (!d.layers) return bad_request("the checkpoint holds no tensor \"" + at(layer_probe, 0) + "\"");
  return d;
}

// The rope the pass rotates with, by layer kind: info derived again with the request's scaling, at seq_len = the
// largest position + 1 (dynamic, longrope), as transformers' dynamic update does.
Expected<ModelInfo> pass_rope(const HfConfig& config, const ForwardOptions& o, long long max_position) {
  HfConfig c = config;
  if (o.rope == RopeAtInference::None) c.rope_scaling.reset();
  if (o.rope == RopeAtInference::Replace) {
    c.rope_scaling = o.rope_scaling;
    c.scaling_key = "rope_scaling";
  }
  return derive_model(c, double(max_position + 1));
}

// The family's token embedding name, or the refusal naming the model_type.
Expected<const InferFamily*> family_of(const HfConfig& config) {
  const std::string type = config.model_type.value_or("");
  const InferFamily* f = infer_family(type);
  if (!f) return bad_request("forward does not run model_type \"" + type + "\" (it runs " + infer_family_types() + ")");
  return f;
}

const char* embed_name(const InferFamily& f) {
  return f.block == InferBlock::Gpt2 ? "transformer.wte.weight" : "model.embed_tokens.weight";
}

}  // namespace

Expected<long long> forward_vocab(Checkpoint& c, const HfConfig& config) {
  Expected<const InferFamily*> f = family_of(config);
  if (!f) return f.error();
  const TensorInfo* t = c.find(embed_name(**f));
  if (!t || t->shape.size() != 2) return bad_request("the checkpoint holds no tensor \"" + std::string(embed_name(**f)) + "\"");
  return t->shape[0];
}

Expected<ForwardResult> forward(Checkpoint& c, const HfConfig& config, const ForwardOptions& o) {
  Expected<const InferFamily*> family = family_of(config);
  if (!family) return family.error();
  const InferFamily* f = *family;
  const std::string type = config.model_type.value_or("");
  const long long T = (long long)o.tokens.size();
  if (T < 1) return bad_request("\"tokens\" must hold at least one token");
  if (T > kMaxForwardTokens)
    return bad_request("a pass takes at most " + std::to_string(kMaxForwardTokens) + " tokens, got " + std::to_string(T));
  if (!o.positions.empty() && (long long)o.positions.size() != T)
    return bad_request("\"positions\" has " + std::to_string(o.positions.size()) + " entries for " + std::to_string(T) +
                       " tokens");
  std::vector<long long> pos = o.positions;
  if (pos.empty())
    for (long long t = 0; t < T; ++t) pos.push_back(t);
  for (long long p : pos)
    if (p < 0 || p > (1LL << 40)) return bad_request("positions must be integers in [0, 2^40], got " + std::to_string(p));
  const long long max_position = *std::max_element(pos.begin(), pos.end());

  const bool gpt2 = f->block == InferBlock::Gpt2;
  const TensorInfo* embed_t = c.find(embed_name(*f));
  if (!embed_t) return bad_request("the checkpoint holds no tensor \"" + std::string(embed_name(*f)) + "\"");
  Expected<ModelInfo> info = gpt2 ? derive_model(config) : pass_rope(config, o, max_position);
  if (!info) return bad_request("config: " + info.error().message);
  if (!gpt2 && !info->rope) return bad_request("config: model_type \"" + type + "\" has no RoPE");
  Expected<Dims> dims = dims_of(config, *f, *embed_t, *info, c, gpt2 ? "transformer.h.{l}.ln_1.weight"
                                                                    : "model.layers.{l}.input_layernorm.weight");
  if (!dims) return dims.error();
  const Dims& D = *dims;
  for (long long t : o.tokens)
    if (t < 0 || t >= D.vocab) return index_error(t, D.vocab);

  const TensorReader read{c};
  Expected<RowMatrixXf> embed = read(embed_name(*f), {D.vocab, D.d});
  if (!embed) return embed.error();
  RowMatrixXf h(T, D.d);
  for (long long t = 0; t < T; ++t) h.row(t) = embed->row(o.tokens[std::size_t(t)]);
  if (f->embed_scale) h *= float(std::sqrt(double(D.d)));  // Gemma's normalizer, in the hidden dtype
  LayerContext ctx{read, *f, D.d, D.heads, D.kv_heads, D.head_dim, D.eps, D.act, T, pos};
  if (gpt2) {
    const TensorInfo* wpe = c.find("transformer.wpe.weight");
    if (!wpe || wpe->shape.size() != 2) return bad_request("the checkpoint holds no tensor \"transformer.wpe.weight\"");
    for (long long p : pos)
      if (p >= wpe->shape[0]) return index_error(p, wpe->shape[0]);
    Expected<RowMatrixXf> table = read("transformer.wpe.weight", {wpe->shape[0], D.d});
    if (!table) return table.error();
    for (long long t = 0; t < T; ++t) h.row(t) += table->row(pos[std::size_t(t)]);
  }

  ForwardResult out;
  out.layers = D.layers;
  out.heads = D.heads;
  out.vocab = int(D.vocab);
  AttentionStats stats;
  stats.by_distance_on = o.attention_by_distance;
  stats.sink_on = o.sink;
  for (int l = 0; l < D.layers; ++l) {
    const std::optional<RopeModel>& rope = gpt2 || o.rope == RopeAtInference::Drop ? std::nullopt
                                                                                    : layer_rope(config, *info, l);
    std::optional<Error> e = gpt2 ? gpt2_layer(ctx, l, h, stats) : llama_layer(ctx, l, rope, h, stats);
    if (e) return *e;
    if (o.progress && !o.progress(l, D.layers)) return bad_request("stopped");
  }
  out.by_distance = std::move(stats.by_distance);
  out.sink = std::move(stats.sink);

  // The final norm, then the head a block of rows at a time (a tied head reads the embeddings).
  std::optional<Error> e = gpt2 ? layer_norm(read, "transformer.ln_f", h, D.eps)
                                : rms_norm(read, "model.norm.weight", f->norm, h, D.eps);
  if (e) return *e;
  const bool tied = !read.has("lm_head.weight");
  Expected<RowMatrixXf> head_read = tied ? RowMatrixXf() : read("lm_head.weight", {D.vocab, D.d});
  if (!head_read) return head_read.error();
  const RowMatrixXf& head = tied ? *embed : *head_read;
  if (o.logits) out.logits.resize(T, D.vocab);
  out.nll.resize(std::size_t(T - 1));
  std::vector<float> scratch;
  RowMatrixXf block;
  for (Eigen::Index r0 = 0; r0 < T; r0 += kHeadRows) {
    const Eigen::Index n = std::min<Eigen::Index>(kHeadRows, T - r0);
    block.resize(n, D.vocab);
    matmul_nt(h.middleRows(r0, n), head, block, scratch);
    for (Eigen::Index r = 0; r < n; ++r) {
      const long long t = r0 + r;
      if (t + 1 < T) out.nll[std::size_t(t)] = token_nll(block.row(r), o.tokens[std::size_t(t + 1)]);
    }
    if (o.logits) out.logits.middleRows(r0, n) = block;
  }
  return out;
}

}  // namespace rv
