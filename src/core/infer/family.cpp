// The forward pass's family table (core/infer/family.hpp).
#include "core/infer/family.hpp"

namespace rv {
namespace {

constexpr InferFamily kFamilies[] = {
    {"llama", InferBlock::Llama, InferNorm::Rms, InferAct::Silu},
    {"mistral", InferBlock::Llama, InferNorm::Rms, InferAct::Silu},
    {"qwen2", InferBlock::Llama, InferNorm::Rms, InferAct::Silu},  // q/k/v biases: read when the checkpoint has them
    {"qwen3", InferBlock::Llama, InferNorm::Rms, InferAct::Silu, false, true},
    {"gemma", InferBlock::Llama, InferNorm::RmsPlusOne, InferAct::GeluTanh, true},
    {"gpt2", InferBlock::Gpt2, InferNorm::Layer, InferAct::GeluTanh},
};

}  // namespace

const InferFamily* infer_family(const std::string& model_type) {
  for (const InferFamily& f : kFamilies)
    if (model_type == f.type) return &f;
  return nullptr;
}

std::string infer_family_types() {
  std::string out;
  for (const InferFamily& f : kFamilies) out += std::string(out.empty() ? "" : ", ") + f.type;
  return out;
}

bool parse_activation(const std::string& name, InferAct& out) {
  if (name == "silu" || name == "swish") {
    out = InferAct::Silu;
  } else if (name == "gelu_pytorch_tanh" || name == "gelu_new" || name == "gelu_fast") {
    out = InferAct::GeluTanh;
  } else if (name == "gelu") {
    out = InferAct::Gelu;
  } else {
    return false;
  }
  return true;
}

}  // namespace rv
