// The model families, as transformers 5's *ForCausalLM lays each out (modeling_<family>.py): tensor names and the
// pieces of its block. The one place that knows a family: the forward pass (core/infer) runs the rows marked `runs`,
// and the weight analyses (attention_layout.hpp) read the attention of every RoPE row.
#pragma once

#include <string>
#include <vector>

namespace rv {

enum class NormKind { Rms, RmsPlusOne, Layer };  // RMSNorm * w; Gemma's RMSNorm * (1 + w); LayerNorm * w + b
enum class Activation { Silu, GeluTanh, Gelu, Relu };
// How a layer adds its branches: pre-norm one after the other; attention and MLP from one norm of the same input
// (Phi, GPT-J); from two norms of it (GPT-NeoX); norms on the branches' outputs only (OLMo 2); both (Gemma 2).
enum class Residual { Sequential, ParallelOneNorm, ParallelTwoNorms, PostNorm, Sandwich };
// q, k and v: three projections; Phi-3's qkv_proj (q rows, then k, then v); GPT-NeoX's query_key_value (per head:
// q, k, v); GPT-2's c_attn (Conv1D, [in, out]).
enum class QkvLayout { Separate, Phi3, NeoX, Gpt2 };
// The MLP: down(act(gate) * up); Phi-3's gate_up_proj (gate rows, then up); fc2(act(fc1)); GPT-2's Conv1D pair;
// Mixtral's top-k routed experts (w1 gate, w3 up, w2 down).
enum class MlpKind { Gated, Phi3, Plain, Gpt2, Moe };
enum class QkNorm { None, PerHead, Whole };  // Qwen3: each head's q and k; OLMo 2: all of q and all of k

struct ModelFamily {
  const char* type;                  // config.model_type
  const char* layer;                 // a layer's prefix, "{l}" its index
  const char* embed;                 // the token embedding [V, d]
  const char* positions;             // a learned position table, or ""
  int position_offset;               // OPT's table starts 2 rows in
  const char *final_norm, *head;     // ".weight" (and LayerNorm's ".bias") follow; a missing head reads the embedding
  const char *attn_norm, *mlp_norm;  // under the layer prefix ("" where the residual has none)
  const char *post_attn_norm, *post_mlp_norm;  // norms of the branches' outputs (OLMo 2, Gemma 2)
  const char *q, *k, *v, *o;                   // projections (q alone names a fused one)
  const char *gate, *up, *down;                // the MLP (up alone for a fused or plain one's first)
  NormKind norm;
  Activation act;  // the default; config.hidden_act overrides
  Residual residual;
  QkvLayout qkv;
  MlpKind mlp;
  QkNorm qk_norm;
  bool embed_scale;  // Gemma: embeddings times sqrt(hidden_size), rounded to the hidden dtype
  bool conv1d;       // GPT-2: every weight stored [in, out]
  double eps;        // transformers' default rms_norm_eps / layer_norm_eps for the type, when the config has none
  bool runs;         // the forward pass runs it (Gemma 3 is read by the weight analyses only)
};

// Under a layer's prefix: the q/k norms of a family with QkNorm (Qwen3, OLMo 2, Gemma 3).
constexpr const char* kQNormName = "self_attn.q_norm.weight";
constexpr const char* kKNormName = "self_attn.k_norm.weight";

// The family of a model_type, or nullptr; the known types (those the forward pass runs), comma-separated, for a
// refusal.
const ModelFamily* model_family(const std::string& model_type);
std::string model_family_types(bool runs_only);
// Every row, in table order.
std::vector<const ModelFamily*> model_families();
// hidden_act's value as an activation: silu, gelu_pytorch_tanh, gelu_new, gelu_fast (tanh), gelu (erf), relu.
bool parse_activation(const std::string& name, Activation& out);

}  // namespace rv
