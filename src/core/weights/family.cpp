// The forward pass's family table (core/infer/family.hpp), each row from the family's modeling file.
#include "core/weights/family.hpp"

namespace rv {
namespace {

using N = NormKind;
using A = Activation;
using R = Residual;
using Q = QkvLayout;
using M = MlpKind;
using K = QkNorm;

constexpr const char* kLlama = "model.layers.{l}.";
// {type, layer, embed, positions, offset, final norm, head, attn norm, mlp norm, post-attn norm, post-mlp norm,
//  q, k, v, o, gate, up, down, norm, act, residual, qkv, mlp, qk norm, embed scale, conv1d, eps, runs}
// clang-format off
constexpr ModelFamily kFamilies[] = {
    {"llama", kLlama, "model.embed_tokens.weight", "", 0, "model.norm", "lm_head", "input_layernorm",
     "post_attention_layernorm", "", "", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
     "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", N::Rms, A::Silu, R::Sequential, Q::Separate, M::Gated, K::None,
     false, false, 1e-6, true},
    {"mistral", kLlama, "model.embed_tokens.weight", "", 0, "model.norm", "lm_head", "input_layernorm",
     "post_attention_layernorm", "", "", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
     "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", N::Rms, A::Silu, R::Sequential, Q::Separate, M::Gated, K::None,
     false, false, 1e-6, true},
    {"mixtral", kLlama, "model.embed_tokens.weight", "", 0, "model.norm", "lm_head", "input_layernorm",
     "post_attention_layernorm", "", "", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
     "block_sparse_moe.experts.{e}.w1", "block_sparse_moe.experts.{e}.w3", "block_sparse_moe.experts.{e}.w2", N::Rms,
     A::Silu, R::Sequential, Q::Separate, M::Moe, K::None, false, false, 1e-5, true},
    {"qwen2", kLlama, "model.embed_tokens.weight", "", 0, "model.norm", "lm_head", "input_layernorm",
     "post_attention_layernorm", "", "", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
     "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", N::Rms, A::Silu, R::Sequential, Q::Separate, M::Gated, K::None,
     false, false, 1e-6, true},
    {"qwen3", kLlama, "model.embed_tokens.weight", "", 0, "model.norm", "lm_head", "input_layernorm",
     "post_attention_layernorm", "", "", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
     "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", N::Rms, A::Silu, R::Sequential, Q::Separate, M::Gated,
     K::PerHead, false, false, 1e-6, true},
    {"gemma", kLlama, "model.embed_tokens.weight", "", 0, "model.norm", "lm_head", "input_layernorm",
     "post_attention_layernorm", "", "", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
     "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", N::RmsPlusOne, A::GeluTanh, R::Sequential, Q::Separate, M::Gated,
     K::None, true, false, 1e-6, true},
    {"gemma2", kLlama, "model.embed_tokens.weight", "", 0, "model.norm", "lm_head", "input_layernorm",
     "pre_feedforward_layernorm", "post_attention_layernorm", "post_feedforward_layernorm", "self_attn.q_proj",
     "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj",
     N::RmsPlusOne, A::GeluTanh, R::Sandwich, Q::Separate, M::Gated, K::None, true, false, 1e-6, true},
    {"olmo2", kLlama, "model.embed_tokens.weight", "", 0, "model.norm", "lm_head", "", "", "post_attention_layernorm",
     "post_feedforward_layernorm", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
     "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", N::Rms, A::Silu, R::PostNorm, Q::Separate, M::Gated, K::Whole,
     false, false, 1e-5, true},
    {"phi3", kLlama, "model.embed_tokens.weight", "", 0, "model.norm", "lm_head", "input_layernorm",
     "post_attention_layernorm", "", "", "self_attn.qkv_proj", "", "", "self_attn.o_proj", "", "mlp.gate_up_proj",
     "mlp.down_proj", N::Rms, A::Silu, R::Sequential, Q::Phi3, M::Phi3, K::None, false, false, 1e-5, true},
    {"phi", kLlama, "model.embed_tokens.weight", "", 0, "model.final_layernorm", "lm_head", "input_layernorm", "", "",
     "", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.dense", "", "mlp.fc1", "mlp.fc2",
     N::Layer, A::GeluTanh, R::ParallelOneNorm, Q::Separate, M::Plain, K::None, false, false, 1e-5, true},
    {"stablelm", kLlama, "model.embed_tokens.weight", "", 0, "model.norm", "lm_head", "input_layernorm",
     "post_attention_layernorm", "", "", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
     "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", N::Layer, A::Silu, R::Sequential, Q::Separate, M::Gated, K::None,
     false, false, 1e-5, true},
    {"starcoder2", kLlama, "model.embed_tokens.weight", "", 0, "model.norm", "lm_head", "input_layernorm",
     "post_attention_layernorm", "", "", "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
     "", "mlp.c_fc", "mlp.c_proj", N::Layer, A::GeluTanh, R::Sequential, Q::Separate, M::Plain, K::None, false, false,
     1e-5, true},
    {"gpt_neox", "gpt_neox.layers.{l}.", "gpt_neox.embed_in.weight", "", 0, "gpt_neox.final_layer_norm", "embed_out",
     "input_layernorm", "post_attention_layernorm", "", "", "attention.query_key_value", "", "", "attention.dense", "",
     "mlp.dense_h_to_4h", "mlp.dense_4h_to_h", N::Layer, A::Gelu, R::ParallelTwoNorms, Q::NeoX, M::Plain, K::None,
     false, false, 1e-5, true},
    {"gptj", "transformer.h.{l}.", "transformer.wte.weight", "", 0, "transformer.ln_f", "lm_head", "ln_1", "", "", "",
     "attn.q_proj", "attn.k_proj", "attn.v_proj", "attn.out_proj", "", "mlp.fc_in", "mlp.fc_out", N::Layer, A::GeluTanh,
     R::ParallelOneNorm, Q::Separate, M::Plain, K::None, false, false, 1e-5, true},
    {"gpt2", "transformer.h.{l}.", "transformer.wte.weight", "transformer.wpe.weight", 0, "transformer.ln_f", "lm_head",
     "ln_1", "ln_2", "", "", "attn.c_attn", "", "", "attn.c_proj", "", "mlp.c_fc", "mlp.c_proj", N::Layer, A::GeluTanh,
     R::Sequential, Q::Gpt2, M::Gpt2, K::None, false, true, 1e-5, true},
    {"opt", "model.decoder.layers.{l}.", "model.decoder.embed_tokens.weight", "model.decoder.embed_positions.weight", 2,
     "model.decoder.final_layer_norm", "lm_head", "self_attn_layer_norm", "final_layer_norm", "", "",
     "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.out_proj", "", "fc1", "fc2", N::Layer,
     A::Relu, R::Sequential, Q::Separate, M::Plain, K::None, false, false, 1e-5, true},
    // Gemma 3: Gemma 2's block with each head's q/k norm and a rope per layer type; its layers are read by the weight
    // analyses, and the forward pass does not run it.
    {"gemma3", kLlama, "model.embed_tokens.weight", "", 0, "model.norm", "lm_head", "input_layernorm",
     "pre_feedforward_layernorm", "post_attention_layernorm", "post_feedforward_layernorm", "self_attn.q_proj",
     "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj",
     N::RmsPlusOne, A::GeluTanh, R::Sandwich, Q::Separate, M::Gated, K::PerHead, true, false, 1e-6, false},
    {"gemma3_text", kLlama, "model.embed_tokens.weight", "", 0, "model.norm", "lm_head", "input_layernorm",
     "pre_feedforward_layernorm", "post_attention_layernorm", "post_feedforward_layernorm", "self_attn.q_proj",
     "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj",
     N::RmsPlusOne, A::GeluTanh, R::Sandwich, Q::Separate, M::Gated, K::PerHead, true, false, 1e-6, false},
};
// clang-format on

}  // namespace

const ModelFamily* model_family(const std::string& model_type) {
  for (const ModelFamily& f : kFamilies)
    if (model_type == f.type) return &f;
  return nullptr;
}

std::string model_family_types(bool runs_only) {
  std::string out;
  for (const ModelFamily& f : kFamilies)
    if (f.runs || !runs_only) out += std::string(out.empty() ? "" : ", ") + f.type;
  return out;
}

std::vector<const ModelFamily*> model_families() {
  std::vector<const ModelFamily*> out;
  for (const ModelFamily& f : kFamilies) out.push_back(&f);
  return out;
}

bool parse_activation(const std::string& name, Activation& out) {
  if (name == "silu" || name == "swish") {
    out = Activation::Silu;
  } else if (name == "gelu_pytorch_tanh" || name == "gelu_new" || name == "gelu_fast") {
    out = Activation::GeluTanh;
  } else if (name == "gelu") {
    out = Activation::Gelu;
  } else if (name == "relu") {
    out = Activation::Relu;
  } else {
    return false;
  }
  return true;
}

}  // namespace rv
