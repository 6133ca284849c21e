// The model families the forward pass runs, as transformers 5's *ForCausalLM lays each out (modeling_<family>.py):
// tensor names and the pieces of its block. One row per family; forward.cpp and layer_ops.cpp read only the row.
#pragma once

#include <string>

namespace rv {

enum class InferNorm { Rms, RmsPlusOne, Layer };  // RMSNorm * w; Gemma's RMSNorm * (1 + w); LayerNorm * w + b
enum class InferAct { Silu, GeluTanh, Gelu, Relu };
// How a layer adds its branches: pre-norm one after the other; attention and MLP from one norm of the same input
// (Phi, GPT-J); from two norms of it (GPT-NeoX); norms on the branches' outputs only (OLMo 2); both (Gemma 2).
enum class InferResidual { Sequential, ParallelOneNorm, ParallelTwoNorms, PostNorm, Sandwich };
// q, k and v: three projections; Phi-3's qkv_proj (q rows, then k, then v); GPT-NeoX's query_key_value (per head:
// q, k, v); GPT-2's c_attn (Conv1D, [in, out]).
enum class InferQkv { Separate, Phi3, NeoX, Gpt2 };
// The MLP: down(act(gate) * up); Phi-3's gate_up_proj (gate rows, then up); fc2(act(fc1)); GPT-2's Conv1D pair;
// Mixtral's top-k routed experts (w1 gate, w3 up, w2 down).
enum class InferMlp { Gated, Phi3, Plain, Gpt2, Moe };
enum class InferQkNorm { None, PerHead, Whole };  // Qwen3: each head's q and k; OLMo 2: all of q and all of k

struct InferFamily {
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
  InferNorm norm;
  InferAct act;  // the default; config.hidden_act overrides
  InferResidual residual;
  InferQkv qkv;
  InferMlp mlp;
  InferQkNorm qk_norm;
  bool embed_scale;  // Gemma: embeddings times sqrt(hidden_size), rounded to the hidden dtype
  bool conv1d;       // GPT-2: every weight stored [in, out]
};

// The family of a model_type, or nullptr; the known types, comma-separated, for the refusal.
const InferFamily* infer_family(const std::string& model_type);
std::string infer_family_types();
// hidden_act's value as an activation: silu, gelu_pytorch_tanh, gelu_new, gelu_fast (tanh), gelu (erf), relu.
bool parse_activation(const std::string& name, InferAct& out);

}  // namespace rv
