// The model families the forward pass runs, as transformers 5's *ForCausalLM lays each out: tensor names and the
// pieces of its block (modeling_<family>.py).
#pragma once

#include <string>

namespace rv {

enum class InferBlock { Llama, Gpt2 };      // pre-norm decoder with separate q/k/v; GPT-2's fused Conv1D block
enum class InferNorm { Rms, RmsPlusOne, Layer };  // RMSNorm * w; Gemma's RMSNorm * (1 + w); LayerNorm * w + b
enum class InferAct { Silu, GeluTanh, Gelu };     // silu; gelu_pytorch_tanh / gelu_new; exact erf GELU

struct InferFamily {
  const char* type;  // config.model_type
  InferBlock block;
  InferNorm norm;
  InferAct act;             // the family's default; config.hidden_act overrides
  bool embed_scale = false;  // Gemma: embeddings times sqrt(hidden_size), rounded to the hidden dtype
  bool qk_norm = false;      // Qwen3: an RMSNorm over each head's q and k before the rotation
};

// The family of a model_type, or nullptr; the known types, comma-separated, for the refusal.
const InferFamily* infer_family(const std::string& model_type);
std::string infer_family_types();
// hidden_act's value as an activation: silu, gelu_pytorch_tanh, gelu_new, gelu_fast (tanh), gelu (erf); else false.
bool parse_activation(const std::string& name, InferAct& out);

}  // namespace rv
