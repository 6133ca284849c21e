// The presets' positional-encoding config fields, copied from published config.json files (see tests/fixtures/).
#include "core/presets.hpp"

#include <string>

namespace rv {

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = {
      {"lesson", "the lesson's toy: B=2, T=5, h=4, d_head=8, max_position=10, Meta's interleaved pairing", "",
       [] {
         HfConfig c;
         c.hidden_size = 32;
         c.num_attention_heads = 4;
         c.max_position_embeddings = 10;
         c.rope_theta = 10000.0;
         c.pairing = Pairing::Interleaved;
         return c;
       }},
      {"gpt2", "openai-community/gpt2", "gpt2.json",
       [] {
         HfConfig c;
         c.model_type = "gpt2";
         c.hidden_size = 768;
         c.num_attention_heads = 12;
         c.max_position_embeddings = 1024;
         return c;
       }},
      {"gpt2-medium", "openai-community/gpt2-medium", "gpt2-medium.json",
       [] {
         HfConfig c;
         c.model_type = "gpt2";
         c.hidden_size = 1024;
         c.num_attention_heads = 16;
         c.max_position_embeddings = 1024;
         return c;
       }},
      {"bert-base",
       "Snowflake/snowflake-arctic-embed-m (a BERT-base config: 512 x 768, as google-bert/bert-base-uncased)",
       "bert-base-arctic-embed-m.json",
       [] {
         HfConfig c;
         c.model_type = "bert";
         c.position_embedding_type = "absolute";
         c.hidden_size = 768;
         c.num_attention_heads = 12;
         c.max_position_embeddings = 512;
         return c;
       }},
      {"llama-2-7b", "meta-llama/Llama-2-7b-hf", "llama-2-7b.json",
       [] {
         HfConfig c;
         c.model_type = "llama";
         c.hidden_size = 4096;
         c.num_attention_heads = 32;
         c.max_position_embeddings = 2048;
         return c;
       }},
      {"codellama-7b", "codellama/CodeLlama-7b-hf", "codellama-7b.json",
       [] {
         HfConfig c;
         c.model_type = "llama";
         c.hidden_size = 4096;
         c.num_attention_heads = 32;
         c.max_position_embeddings = 16384;
         c.rope_theta = 1000000.0;
         return c;
       }},
      {"llama-3-8b", "meta-llama/Meta-Llama-3-8B", "",
       [] {
         HfConfig c;
         c.model_type = "llama";
         c.hidden_size = 4096;
         c.num_attention_heads = 32;
         c.max_position_embeddings = 8192;
         c.rope_theta = 500000.0;
         return c;
       }},
      {"llama-3.1-8b", "meta-llama/Llama-3.1-8B", "llama-3.1-8b.json",
       [] {
         HfConfig c;
         c.model_type = "llama";
         c.hidden_size = 4096;
         c.num_attention_heads = 32;
         c.max_position_embeddings = 131072;
         c.rope_theta = 500000.0;
         HfRopeScaling s;
         s.rope_type = "llama3";
         s.factor = 8.0;
         s.original_max_position_embeddings = 8192.0;
         s.low_freq_factor = 1.0;
         s.high_freq_factor = 4.0;
         c.rope_scaling = s;
         return c;
       }},
      {"llama-3.2-1b", "meta-llama/Llama-3.2-1B", "llama-3.2-1b.json",
       [] {
         HfConfig c;
         c.model_type = "llama";
         c.hidden_size = 2048;
         c.num_attention_heads = 32;
         c.head_dim = 64;
         c.max_position_embeddings = 131072;
         c.rope_theta = 500000.0;
         HfRopeScaling s;
         s.rope_type = "llama3";
         s.factor = 32.0;
         s.original_max_position_embeddings = 8192.0;
         s.low_freq_factor = 1.0;
         s.high_freq_factor = 4.0;
         c.rope_scaling = s;
         return c;
       }},
      {"mistral-7b-v0.1", "mistralai/Mistral-7B-v0.1", "mistral-7b-v0.1.json",
       [] {
         HfConfig c;
         c.model_type = "mistral";
         c.hidden_size = 4096;
         c.num_attention_heads = 32;
         c.max_position_embeddings = 32768;
         c.rope_theta = 10000.0;
         return c;
       }},
      {"mistral-7b-v0.3", "mistralai/Mistral-7B-v0.3", "mistral-7b-v0.3.json",
       [] {
         HfConfig c;
         c.model_type = "mistral";
         c.hidden_size = 4096;
         c.num_attention_heads = 32;
         c.max_position_embeddings = 32768;
         c.rope_theta = 1000000.0;
         return c;
       }},
      {"mixtral-8x7b", "mistralai/Mixtral-8x7B-v0.1", "mixtral-8x7b.json",
       [] {
         HfConfig c;
         c.model_type = "mixtral";
         c.hidden_size = 4096;
         c.num_attention_heads = 32;
         c.max_position_embeddings = 32768;
         c.rope_theta = 1000000.0;
         return c;
       }},
      {"qwen2-7b", "Qwen/Qwen2-7B", "qwen2-7b.json",
       [] {
         HfConfig c;
         c.model_type = "qwen2";
         c.hidden_size = 3584;
         c.num_attention_heads = 28;
         c.max_position_embeddings = 32768;
         c.rope_theta = 1000000.0;
         return c;
       }},
      {"qwen3-0.6b", "Qwen/Qwen3-0.6B", "qwen3-0.6b.json",
       [] {
         HfConfig c;
         c.model_type = "qwen3";
         c.hidden_size = 1024;
         c.num_attention_heads = 16;
         c.head_dim = 128;
         c.max_position_embeddings = 40960;
         c.rope_theta = 1000000.0;
         return c;
       }},
      {"gemma-2b", "google/gemma-2b", "gemma-2b.json",
       [] {
         HfConfig c;
         c.model_type = "gemma";
         c.hidden_size = 2048;
         c.num_attention_heads = 8;
         c.head_dim = 256;
         c.max_position_embeddings = 8192;
         c.rope_theta = 10000.0;
         return c;
       }},
      {"gemma-2-9b", "google/gemma-2-9b", "gemma-2-9b.json",
       [] {
         HfConfig c;
         c.model_type = "gemma2";
         c.hidden_size = 3584;
         c.num_attention_heads = 16;
         c.head_dim = 256;
         c.max_position_embeddings = 8192;
         c.rope_theta = 10000.0;
         return c;
       }},
      {"phi-2", "microsoft/phi-2", "",
       [] {
         HfConfig c;
         c.model_type = "phi";
         c.hidden_size = 2560;
         c.num_attention_heads = 32;
         c.max_position_embeddings = 2048;
         c.partial_rotary_factor = 0.4;
         c.rope_theta = 10000.0;
         return c;
       }},
      {"phi-3.5-mini", "microsoft/Phi-3.5-mini-instruct", "phi-3.5-mini.json",
       [] {
         HfConfig c;
         c.model_type = "phi3";
         c.hidden_size = 3072;
         c.num_attention_heads = 32;
         c.max_position_embeddings = 131072;
         c.original_max_position_embeddings = 4096;
         c.rope_theta = 10000.0;
         HfRopeScaling s;
         s.type = "longrope";
         s.short_factor = std::vector<double>{1.0,
                                              1.0199999809265137,
                                              1.0299999713897705,
                                              1.0299999713897705,
                                              1.0499999523162842,
                                              1.0499999523162842,
                                              1.0499999523162842,
                                              1.0499999523162842,
                                              1.0499999523162842,
                                              1.0699999332427979,
                                              1.0999999046325684,
                                              1.1099998950958252,
                                              1.1599998474121094,
                                              1.1599998474121094,
                                              1.1699998378753662,
                                              1.2899998426437378,
                                              1.339999794960022,
                                              1.679999828338623,
                                              1.7899998426437378,
                                              1.8199998140335083,
                                              1.8499997854232788,
                                              1.8799997568130493,
                                              1.9099997282028198,
                                              1.9399996995925903,
                                              1.9899996519088745,
                                              2.0199997425079346,
                                              2.0199997425079346,
                                              2.0199997425079346,
                                              2.0199997425079346,
                                              2.0199997425079346,
                                              2.0199997425079346,
                                              2.0299997329711914,
                                              2.0299997329711914,
                                              2.0299997329711914,
                                              2.0299997329711914,
                                              2.0299997329711914,
                                              2.0299997329711914,
                                              2.0299997329711914,
                                              2.0299997329711914,
                                              2.0299997329711914,
                                              2.0799996852874756,
                                              2.0899996757507324,
                                              2.189999580383301,
                                              2.2199995517730713,
                                              2.5899994373321533,
                                              2.729999542236328,
                                              2.749999523162842,
                                              2.8399994373321533};
         s.long_factor = std::vector<double>{
             1.0800000429153442, 1.1100000143051147, 1.1399999856948853, 1.340000033378601,  1.5899999141693115,
             1.600000023841858,  1.6200000047683716, 2.620000123977661,  3.2300000190734863, 3.2300000190734863,
             4.789999961853027,  7.400000095367432,  7.700000286102295,  9.09000015258789,   12.199999809265137,
             17.670000076293945, 24.46000099182129,  28.57000160217285,  30.420001983642578, 30.840002059936523,
             32.590003967285156, 32.93000411987305,  42.320003509521484, 44.96000289916992,  50.340003967285156,
             50.45000457763672,  57.55000305175781,  57.93000411987305,  58.21000289916992,  60.1400032043457,
             62.61000442504883,  62.62000274658203,  62.71000289916992,  63.1400032043457,   63.1400032043457,
             63.77000427246094,  63.93000411987305,  63.96000289916992,  63.970001220703125, 64.02999877929688,
             64.06999969482422,  64.08000183105469,  64.12000274658203,  64.41000366210938,  64.4800033569336,
             64.51000213623047,  64.52999877929688,  64.83999633789062};
         c.rope_scaling = s;
         return c;
       }},
      {"gpt-j-6b", "EleutherAI/gpt-j-6b", "gpt-j-6b.json",
       [] {
         HfConfig c;
         c.model_type = "gptj";
         c.hidden_size = 4096;
         c.num_attention_heads = 16;
         c.max_position_embeddings = 2048;
         c.rotary_dim = 64;
         return c;
       }},
      {"gpt-neox", "togethercomputer/RedPajama-INCITE-Base-3B-v1 (a GPT-NeoX config)", "redpajama-3b-gpt-neox.json",
       [] {
         HfConfig c;
         c.model_type = "gpt_neox";
         c.hidden_size = 2560;
         c.num_attention_heads = 32;
         c.max_position_embeddings = 2048;
         c.rotary_pct = 1.0;
         c.rotary_emb_base = 10000.0;
         return c;
       }},
      {"pythia-160m", "EleutherAI/pythia-160m", "",
       [] {
         HfConfig c;
         c.model_type = "gpt_neox";
         c.hidden_size = 768;
         c.num_attention_heads = 12;
         c.max_position_embeddings = 2048;
         c.rotary_pct = 0.25;
         c.rotary_emb_base = 10000.0;
         return c;
       }},
      {"stablelm-2-1.6b", "stabilityai/stablelm-2-1_6b", "stablelm-2-1.6b.json",
       [] {
         HfConfig c;
         c.model_type = "stablelm";
         c.hidden_size = 2048;
         c.num_attention_heads = 32;
         c.max_position_embeddings = 4096;
         c.partial_rotary_factor = 0.25;
         c.rope_theta = 10000.0;
         return c;
       }},
      {"deepseek-v2-lite", "deepseek-ai/DeepSeek-V2-Lite", "deepseek-v2-lite.json",
       [] {
         HfConfig c;
         c.model_type = "deepseek_v2";
         c.hidden_size = 2048;
         c.num_attention_heads = 16;
         c.max_position_embeddings = 163840;
         c.qk_rope_head_dim = 64;
         c.rope_theta = 10000.0;
         HfRopeScaling s;
         s.type = "yarn";
         s.factor = 40.0;
         s.original_max_position_embeddings = 4096.0;
         s.beta_fast = 32.0;
         s.beta_slow = 1.0;
         s.mscale = 0.707;
         s.mscale_all_dim = 0.707;
         c.rope_scaling = s;
         return c;
       }},
      {"internlm2.5-7b", "internlm/internlm2_5-7b", "internlm2.5-7b.json",
       [] {
         HfConfig c;
         c.model_type = "internlm2";
         c.hidden_size = 4096;
         c.num_attention_heads = 32;
         c.max_position_embeddings = 32768;
         c.rope_theta = 1000000.0;
         HfRopeScaling s;
         s.type = "dynamic";
         s.factor = 2.0;
         c.rope_scaling = s;
         return c;
       }},
      {"minicpm-2b", "openbmb MiniCPM-2B (the 128k-context config: dynamic x4)", "minicpm-2b.json",
       [] {
         HfConfig c;
         c.model_type = "minicpm";
         c.hidden_size = 2304;
         c.num_attention_heads = 36;
         c.max_position_embeddings = 65536;
         c.rope_theta = 1000000.0;
         HfRopeScaling s;
         s.type = "dynamic";
         s.factor = 4.0;
         c.rope_scaling = s;
         return c;
       }},
      {"olmo-2-7b", "allenai/OLMo-2-1124-7B", "olmo-2-7b.json",
       [] {
         HfConfig c;
         c.model_type = "olmo2";
         c.hidden_size = 4096;
         c.num_attention_heads = 32;
         c.max_position_embeddings = 4096;
         c.rope_theta = 500000.0;
         return c;
       }},
      {"smollm2-135m", "HuggingFaceTB/SmolLM2-135M", "smollm2-135m.json",
       [] {
         HfConfig c;
         c.model_type = "llama";
         c.hidden_size = 576;
         c.num_attention_heads = 9;
         c.max_position_embeddings = 8192;
         c.rope_theta = 100000.0;
         return c;
       }},
  };
  return all;
}

const Preset* find_preset(std::string_view name) {
  for (const Preset& p : presets())
    if (name == p.name) return &p;
  return nullptr;
}

Expected<ModelInfo> preset_model(std::string_view name, std::optional<double> seq_len) {
  const Preset* p = find_preset(name);
  if (!p) {
    std::string known;
    for (const Preset& q : presets()) known += (known.empty() ? "" : ", ") + std::string(q.name);
    return bad_request("unknown preset \"" + std::string(name) + "\"; known: " + known);
  }
  return derive_model(p->config(), seq_len);
}

}  // namespace rv
