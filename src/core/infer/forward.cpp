// The forward pass (core/infer/forward.hpp): embeddings, each layer read, run and let go, the final norm and the head
// a block of rows at a time.
#include "core/infer/forward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/matmul.hpp"
#include "core/base/portable_math.hpp"
#include "core/weights/family.hpp"
#include "core/infer/layer_ops.hpp"
#include "core/infer/parallel.hpp"

namespace rv {
namespace {

using detail::matmul;

constexpr Eigen::Index kHeadRows = 64;  // rows of hidden states through the head at a time

// The model's sizes, from the config and the embedding's shape.
struct Dims {
  long long vocab = 0, d = 0;
  int heads = 0, kv_heads = 0, head_dim = 0, layers = 0;
  float eps = 1e-6f;
  Activation act = Activation::Silu;
};

Expected<Dims> dims_of(const HfConfig& config, const ModelFamily& f, const TensorInfo& embed, const ModelInfo& info,
                       Checkpoint& c) {
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
  const bool layer_norm = f.norm == NormKind::Layer;
  d.eps = float((layer_norm ? config.layer_norm_eps : config.rms_norm_eps).value_or(f.eps));
  d.act = f.act;
  if (config.hidden_act && !parse_activation(*config.hidden_act, d.act))
    return bad_request("config: hidden_act \"" + *config.hidden_act +
                       "\" is not one the forward pass runs (silu, "
                       "gelu, gelu_new, gelu_pytorch_tanh, relu)");
  const std::string probe = std::string(f.layer) + f.q + ".weight";
  while (c.find(at_index(probe, d.layers))) ++d.layers;
  if (!d.layers) return bad_request("the checkpoint holds no tensor \"" + at_index(probe, 0) + "\"");
  return d;
}

// The sliding window a layer attends within, 0 for all of the past: layer_types' "sliding_attention" layers, else
// Gemma 2's every other layer from the first, else every layer of the families whose configs set one for all.
long long layer_window(const HfConfig& c, const ModelFamily& f, int l) {
  if (!c.sliding_window || *c.sliding_window < 1) return 0;
  const std::string type = f.type;
  bool slides = type == "mistral" || type == "mixtral" || type == "starcoder2" || type == "phi3";
  if (type == "gemma2") slides = l % 2 == 0;
  if (c.layer_types)
    slides = std::size_t(l) < c.layer_types->size() && (*c.layer_types)[std::size_t(l)] == "sliding_attention";
  return slides ? *c.sliding_window : 0;
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
Expected<const ModelFamily*> family_of(const HfConfig& config) {
  const std::string type = config.model_type.value_or("");
  const ModelFamily* f = model_family(type);
  if (!f || !f->runs)
    return bad_request("forward does not run model_type \"" + type + "\" (it runs " + model_family_types(true) + ")");
  return f;
}

const char* embed_name(const ModelFamily& f) {
  return f.embed;
}

}  // namespace

Expected<ForwardShape> forward_shape(Checkpoint& c, const HfConfig& config) {
  Expected<const ModelFamily*> f = family_of(config);
  if (!f) return f.error();
  const TensorInfo* t = c.find(embed_name(**f));
  if (!t) return bad_request("the checkpoint holds no tensor \"" + std::string(embed_name(**f)) + "\"");
  Expected<ModelInfo> info = derive_model(config);
  if (!info) return bad_request("config: " + info.error().message);
  Expected<Dims> d = dims_of(config, **f, *t, *info, c);
  if (!d) return d.error();
  return ForwardShape{d->vocab, d->d, d->layers, d->heads};
}

namespace {

// The position ids: o.positions, else 0..T-1, each checked.
Expected<std::vector<long long>> position_ids(const ForwardOptions& o) {
  const long long T = (long long)o.tokens.size();
  if (T < 1) return bad_request("\"tokens\" must hold at least one token");
  if (T > kMaxForwardTokens)
    return bad_request("a pass takes at most " + std::to_string(kMaxForwardTokens) + " tokens, got " +
                       std::to_string(T));
  if (!o.positions.empty() && (long long)o.positions.size() != T)
    return bad_request("\"positions\" has " + std::to_string(o.positions.size()) + " entries for " + std::to_string(T) +
                       " tokens");
  std::vector<long long> pos = o.positions;
  if (pos.empty())
    for (long long t = 0; t < T; ++t) pos.push_back(t);
  for (long long p : pos)
    if (p < 0 || p > (1LL << 40))
      return bad_request("positions must be integers in [0, 2^40], got " + std::to_string(p));
  return pos;
}

// The first layer's input [T, d]: the token rows (Gemma: times sqrt(d)), plus a learned table's rows (GPT-2's wpe,
// OPT's embed_positions, which starts position_offset rows in); a position past the table is PyTorch's IndexError.
Expected<RowMatrixXf> embed_input(const TensorReader& read, const ModelFamily& f, const Dims& D,
                                  const RowMatrixXf& embed, const std::vector<long long>& tokens,
                                  const std::vector<long long>& pos) {
  const Eigen::Index T = Eigen::Index(tokens.size());
  RowMatrixXf h(T, D.d);
  for (Eigen::Index t = 0; t < T; ++t) h.row(t) = embed.row(tokens[std::size_t(t)]);
  if (f.embed_scale) h *= float(std::sqrt(double(D.d)));  // Gemma's normalizer, in the hidden dtype
  if (!*f.positions) return h;
  const long long rows = read.dim(f.positions, 0);
  if (rows < 1) return bad_request("the checkpoint holds no tensor \"" + std::string(f.positions) + "\"");
  for (long long p : pos)
    if (p + f.position_offset >= rows) return index_error(p + f.position_offset, rows);
  Expected<RowMatrixXf> table = read(f.positions, {rows, D.d});
  if (!table) return table.error();
  for (Eigen::Index t = 0; t < T; ++t) h.row(t) += table->row(pos[std::size_t(t)] + f.position_offset);
  return h;
}

// What every layer of this model and request shares.
LayerContext layer_context(const TensorReader& read, const ModelFamily& f, const HfConfig& config, const Dims& D,
                           const std::vector<long long>& pos, const ForwardOptions& o) {
  const std::string type = f.type;
  const bool sequential_neox =
      f.residual == Residual::ParallelTwoNorms && config.use_parallel_residual && !*config.use_parallel_residual;
  // Gemma 2 scales scores by query_pre_attn_scalar^-0.5 (transformers' default 256), the others by head_dim^-0.5
  const double scaled = type == "gemma2" ? config.query_pre_attn_scalar.value_or(256.0) : double(D.head_dim);
  return LayerContext{read,
                      f,
                      D.d,
                      D.heads,
                      D.kv_heads,
                      D.head_dim,
                      D.eps,
                      D.act,
                      pos,
                      sequential_neox ? Residual::Sequential : f.residual,
                      float(1.0 / std::sqrt(scaled)),
                      type == "gpt2" || type == "gptj",
                      float(config.attn_logit_softcapping.value_or(0.0)),
                      int(config.num_experts_per_tok.value_or(0)),
                      o.rope == RopeAtInference::Drop,
                      std::max(1, o.threads)};
}

// The final norm, then the head a block of rows at a time (a tied head reads the embeddings; Phi's and GPT-J's have a
// bias; Gemma 2 soft-caps the logits): the NLL, and the logits and last hidden state when asked.
std::optional<Error> run_head(const TensorReader& read, const ModelFamily& f, const HfConfig& config, const Dims& D,
                              const RowMatrixXf& embed, const ForwardOptions& o, RowMatrixXf& h, ForwardResult& out) {
  if (auto e = apply_norm(read, f.final_norm, f.norm, h, D.eps)) return e;
  if (o.hidden) out.hidden.push_back(h);  // the last layer's output after the final norm, as hidden_states ends
  const std::string head_name = std::string(f.head) + ".weight", bias_name = std::string(f.head) + ".bias";
  const bool tied = !read.has(head_name);
  Expected<RowMatrixXf> head_read = tied ? RowMatrixXf() : read(head_name, {D.vocab, D.d});
  if (!head_read) return head_read.error();
  const RowMatrixXf& head = tied ? embed : *head_read;
  Expected<RowMatrixXf> bias = read.has(bias_name) ? read(bias_name, {D.vocab}) : RowMatrixXf();
  if (!bias) return bias.error();
  const float cap = float(config.final_logit_softcapping.value_or(0.0));
  const Eigen::Index T = h.rows();
  if (o.logits) out.logits.resize(T, D.vocab);
  out.nll.assign(std::size_t(T - 1), std::numeric_limits<double>::quiet_NaN());
  if (o.top1) out.top1.assign(std::size_t(T - 1), 0);
  const RowMatrixXf ht = head.transpose();  // [d, V]: rows of h times it
  const Eigen::Index first = o.logits ? 0 : std::clamp<Eigen::Index>(Eigen::Index(o.head_from), 0, T - 1);
  const int blocks = int((T - first + kHeadRows - 1) / kHeadRows);
  parallel_for(blocks, std::max(1, o.threads), [&](int b) {  // each block of rows: its logits, then their NLL
    const Eigen::Index r0 = first + Eigen::Index(b) * kHeadRows, n = std::min<Eigen::Index>(kHeadRows, T - r0);
    RowMatrixXf block(n, D.vocab);
    matmul(h.middleRows(r0, n), ht, block);
    if (bias->size()) block.rowwise() += bias->row(0);
    if (cap > 0) block = block.unaryExpr([cap](float x) { return math::tanh(x / cap) * cap; });
    for (Eigen::Index r = 0; r < n && r0 + r + 1 < T; ++r) {
      const long long next = o.tokens[std::size_t(r0 + r + 1)];
      out.nll[std::size_t(r0 + r)] = token_nll(block.row(r), next);
      if (o.top1) {
        Eigen::Index best = 0;
        block.row(r).maxCoeff(&best);
        out.top1[std::size_t(r0 + r)] = best == Eigen::Index(next);
      }
    }
    if (o.logits) out.logits.middleRows(r0, n) = block;
  });
  return std::nullopt;
}

}  // namespace

Expected<ForwardResult> forward(Checkpoint& c, const HfConfig& config, const ForwardOptions& o) {
  Expected<const ModelFamily*> family = family_of(config);
  if (!family) return family.error();
  const ModelFamily& f = **family;
  const std::string type = f.type;
  Expected<std::vector<long long>> pos = position_ids(o);
  if (!pos) return pos.error();
  const bool learned = *f.positions != '\0';
  if (o.qk_pair_norms && learned)
    return bad_request("\"qk_pair_norms\" are the rotated pairs of a RoPE model; model_type \"" + type +
                       "\" has a learned position table");
  const TensorInfo* embed_t = c.find(embed_name(f));
  if (!embed_t) return bad_request("the checkpoint holds no tensor \"" + std::string(embed_name(f)) + "\"");
  const long long max_position = *std::max_element(pos->begin(), pos->end());
  Expected<ModelInfo> info = learned ? derive_model(config) : pass_rope(config, o, max_position);
  if (!info) return bad_request("config: " + info.error().message);
  if (!learned && !info->rope) return bad_request("config: model_type \"" + type + "\" has no RoPE");
  Expected<Dims> dims = dims_of(config, f, *embed_t, *info, c);
  if (!dims) return dims.error();
  const Dims& D = *dims;
  for (long long t : o.tokens)
    if (t < 0 || t >= D.vocab) return index_error(t, D.vocab);
  if (f.mlp == MlpKind::Moe && !config.num_experts_per_tok)
    return bad_request("config: missing num_experts_per_tok (" + type + " routes each token to that many experts)");

  const TensorReader read{c};
  Expected<RowMatrixXf> embed = read(embed_name(f), {D.vocab, D.d});
  if (!embed) return embed.error();
  Expected<RowMatrixXf> input = embed_input(read, f, D, *embed, o.tokens, *pos);
  if (!input) return input.error();
  RowMatrixXf& h = input.value();
  const LayerContext ctx = layer_context(read, f, config, D, *pos, o);
  ForwardResult out;
  out.layers = D.layers;
  out.heads = D.heads;
  out.vocab = int(D.vocab);
  AttentionStats stats;
  stats.by_distance_on = o.attention_by_distance;
  stats.sink_on = o.sink;
  stats.probabilities_on = o.attention;
  stats.pairs_on = o.qk_pair_norms;
  if (o.hidden) out.hidden.push_back(h);
  const std::optional<RopeModel> none;
  for (int l = 0; l < D.layers; ++l) {
    const std::optional<RopeModel>& rope = learned ? none : layer_rope(config, *info, l);
    if (auto e = run_layer(ctx, l, rope, layer_window(config, f, l), h, stats)) return *e;
    if (o.hidden && l + 1 < D.layers) out.hidden.push_back(h);
    if (o.progress && !o.progress(l, D.layers)) return bad_request("stopped");
  }
  out.by_distance = std::move(stats.by_distance);
  out.sink = std::move(stats.sink);
  out.attention = std::move(stats.probabilities);
  out.q_pair_norms = std::move(stats.q_pairs);
  out.k_pair_norms = std::move(stats.k_pairs);
  if (auto e = run_head(read, f, config, D, *embed, o, h, out)) return *e;
  return out;
}

}  // namespace rv
