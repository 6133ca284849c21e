// The presets as one table of published config.json fields (tests/fixtures/), read by the config.json reader.
#include "core/models/presets.hpp"

#include <string>

#include "core/models/json_config.hpp"

namespace rv {

const std::vector<Preset>& presets() {
  // {name, source, fixture, config.json fields (only those the positional encoding reads) [, pairing]}
  static const std::vector<Preset> all = {
      {"lesson", "the lesson's toy: B=2, T=5, h=4, d_head=8, max_position=10, Meta's interleaved pairing", "",
       R"({"hidden_size":32,"num_attention_heads":4,"max_position_embeddings":10,"rope_theta":10000.0})",
       Pairing::Interleaved},
      {"gpt2", "openai-community/gpt2", "gpt2.json",
       R"({"model_type":"gpt2","n_embd":768,"n_head":12,"n_positions":1024})"},
      {"gpt2-medium", "openai-community/gpt2-medium", "gpt2-medium.json",
       R"({"model_type":"gpt2","n_embd":1024,"n_head":16,"n_positions":1024})"},
      {"bert-base",
       "Snowflake/snowflake-arctic-embed-m (a BERT-base config: 512 x 768, as google-bert/bert-base-uncased)",
       "bert-base-arctic-embed-m.json",
       R"({"model_type":"bert","position_embedding_type":"absolute","hidden_size":768,"num_attention_heads":12,)"
       R"("max_position_embeddings":512})"},
      {"llama-2-7b", "meta-llama/Llama-2-7b-hf", "llama-2-7b.json",
       R"({"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":4096})"},
      {"codellama-7b", "codellama/CodeLlama-7b-hf", "codellama-7b.json",
       R"({"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":16384,)"
       R"("rope_theta":1000000.0})"},
      {"llama-3-8b", "meta-llama/Meta-Llama-3-8B", "",
       R"({"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":8192,)"
       R"("rope_theta":500000.0})"},
      {"llama-3.1-8b", "meta-llama/Llama-3.1-8B", "llama-3.1-8b.json",
       R"({"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":131072,)"
       R"("rope_theta":500000.0,"rope_scaling":{"rope_type":"llama3","factor":8.0,)"
       R"("original_max_position_embeddings":8192.0,"low_freq_factor":1.0,"high_freq_factor":4.0}})"},
      {"llama-3.2-1b", "meta-llama/Llama-3.2-1B", "llama-3.2-1b.json",
       R"({"model_type":"llama","hidden_size":2048,"num_attention_heads":32,"head_dim":64,)"
       R"("max_position_embeddings":131072,"rope_theta":500000.0,"rope_scaling":{"rope_type":"llama3",)"
       R"("factor":32.0,"original_max_position_embeddings":8192.0,"low_freq_factor":1.0,"high_freq_factor":4.0}})"},
      {"mistral-7b-v0.1", "mistralai/Mistral-7B-v0.1", "mistral-7b-v0.1.json",
       R"({"model_type":"mistral","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":32768,)"
       R"("rope_theta":10000.0})"},
      {"mistral-7b-v0.3", "mistralai/Mistral-7B-v0.3", "mistral-7b-v0.3.json",
       R"({"model_type":"mistral","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":32768,)"
       R"("rope_theta":1000000.0})"},
      {"mixtral-8x7b", "mistralai/Mixtral-8x7B-v0.1", "mixtral-8x7b.json",
       R"({"model_type":"mixtral","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":32768,)"
       R"("rope_theta":1000000.0})"},
      {"qwen2-7b", "Qwen/Qwen2-7B", "qwen2-7b.json",
       R"({"model_type":"qwen2","hidden_size":3584,"num_attention_heads":28,"max_position_embeddings":32768,)"
       R"("rope_theta":1000000.0})"},
      {"qwen3-0.6b", "Qwen/Qwen3-0.6B", "qwen3-0.6b.json",
       R"({"model_type":"qwen3","hidden_size":1024,"num_attention_heads":16,"head_dim":128,)"
       R"("max_position_embeddings":40960,"rope_theta":1000000.0})"},
      {"gemma-2b", "google/gemma-2b", "gemma-2b.json",
       R"({"model_type":"gemma","hidden_size":2048,"num_attention_heads":8,"head_dim":256,)"
       R"("max_position_embeddings":8192,"rope_theta":10000.0})"},
      {"gemma-2-9b", "google/gemma-2-9b", "gemma-2-9b.json",
       R"({"model_type":"gemma2","hidden_size":3584,"num_attention_heads":16,"head_dim":256,)"
       R"("max_position_embeddings":8192,"rope_theta":10000.0})"},
      {"phi-2", "microsoft/phi-2", "",
       R"({"model_type":"phi","hidden_size":2560,"num_attention_heads":32,"max_position_embeddings":2048,)"
       R"("partial_rotary_factor":0.4,"rope_theta":10000.0})"},
      {"phi-3.5-mini", "microsoft/Phi-3.5-mini-instruct", "phi-3.5-mini.json",
       R"({"model_type":"phi3","hidden_size":3072,"num_attention_heads":32,"max_position_embeddings":131072,)"
       R"("original_max_position_embeddings":4096,"rope_theta":10000.0,"rope_scaling":{"type":"longrope",)"
       R"("short_factor":[1.0,1.0199999809265137,1.0299999713897705,1.0299999713897705,1.0499999523162842,)"
       R"(1.0499999523162842,1.0499999523162842,1.0499999523162842,1.0499999523162842,1.0699999332427979,)"
       R"(1.0999999046325684,1.1099998950958252,1.1599998474121094,1.1599998474121094,1.1699998378753662,)"
       R"(1.2899998426437378,1.339999794960022,1.679999828338623,1.7899998426437378,1.8199998140335083,)"
       R"(1.8499997854232788,1.8799997568130493,1.9099997282028198,1.9399996995925903,1.9899996519088745,)"
       R"(2.0199997425079346,2.0199997425079346,2.0199997425079346,2.0199997425079346,2.0199997425079346,)"
       R"(2.0199997425079346,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,)"
       R"(2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,)"
       R"(2.0799996852874756,2.0899996757507324,2.189999580383301,2.2199995517730713,2.5899994373321533,)"
       R"(2.729999542236328,2.749999523162842,2.8399994373321533],"long_factor":[1.0800000429153442,)"
       R"(1.1100000143051147,1.1399999856948853,1.340000033378601,1.5899999141693115,1.600000023841858,)"
       R"(1.6200000047683716,2.620000123977661,3.2300000190734863,3.2300000190734863,4.789999961853027,)"
       R"(7.400000095367432,7.700000286102295,9.09000015258789,12.199999809265137,17.670000076293945,)"
       R"(24.46000099182129,28.57000160217285,30.420001983642578,30.840002059936523,32.590003967285156,)"
       R"(32.93000411987305,42.320003509521484,44.96000289916992,50.340003967285156,50.45000457763672,)"
       R"(57.55000305175781,57.93000411987305,58.21000289916992,60.1400032043457,62.61000442504883,)"
       R"(62.62000274658203,62.71000289916992,63.1400032043457,63.1400032043457,63.77000427246094,)"
       R"(63.93000411987305,63.96000289916992,63.970001220703125,64.02999877929688,64.06999969482422,)"
       R"(64.08000183105469,64.12000274658203,64.41000366210938,64.4800033569336,64.51000213623047,)"
       R"(64.52999877929688,64.83999633789062]}})"},
      {"gpt-j-6b", "EleutherAI/gpt-j-6b", "gpt-j-6b.json",
       R"({"model_type":"gptj","n_embd":4096,"n_head":16,"n_positions":2048,"rotary_dim":64})"},
      {"gpt-neox", "togethercomputer/RedPajama-INCITE-Base-3B-v1 (a GPT-NeoX config)", "redpajama-3b-gpt-neox.json",
       R"({"model_type":"gpt_neox","hidden_size":2560,"num_attention_heads":32,"max_position_embeddings":2048,)"
       R"("rotary_pct":1.0,"rotary_emb_base":10000.0})"},
      {"pythia-160m", "EleutherAI/pythia-160m", "",
       R"({"model_type":"gpt_neox","hidden_size":768,"num_attention_heads":12,"max_position_embeddings":2048,)"
       R"("rotary_pct":0.25,"rotary_emb_base":10000.0})"},
      {"stablelm-2-1.6b", "stabilityai/stablelm-2-1_6b", "stablelm-2-1.6b.json",
       R"({"model_type":"stablelm","hidden_size":2048,"num_attention_heads":32,"max_position_embeddings":4096,)"
       R"("partial_rotary_factor":0.25,"rope_theta":10000.0})"},
      {"deepseek-v2-lite", "deepseek-ai/DeepSeek-V2-Lite", "deepseek-v2-lite.json",
       R"({"model_type":"deepseek_v2","hidden_size":2048,"num_attention_heads":16,)"
       R"("max_position_embeddings":163840,"qk_rope_head_dim":64,"rope_theta":10000.0,)"
       R"("rope_scaling":{"type":"yarn","factor":40.0,"original_max_position_embeddings":4096.0,"beta_fast":32.0,)"
       R"("beta_slow":1.0,"mscale":0.707,"mscale_all_dim":0.707}})"},
      {"internlm2.5-7b", "internlm/internlm2_5-7b", "internlm2.5-7b.json",
       R"({"model_type":"internlm2","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":32768,)"
       R"("rope_theta":1000000.0,"rope_scaling":{"type":"dynamic","factor":2.0}})"},
      {"minicpm-2b", "openbmb MiniCPM-2B (the 128k-context config: dynamic x4)", "minicpm-2b.json",
       R"({"model_type":"minicpm","hidden_size":2304,"num_attention_heads":36,"max_position_embeddings":65536,)"
       R"("rope_theta":1000000.0,"rope_scaling":{"type":"dynamic","factor":4.0}})"},
      {"olmo-2-7b", "allenai/OLMo-2-1124-7B", "olmo-2-7b.json",
       R"({"model_type":"olmo2","hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":4096,)"
       R"("rope_theta":500000.0})"},
      {"gemma-3-4b", "google/gemma-3-4b-it (its text_config; sliding layers: rope_local_base_freq)", "gemma-3-4b.json",
       R"({"model_type":"gemma3_text","hidden_size":2560,"num_attention_heads":8,"head_dim":256,)"
       R"("max_position_embeddings":131072,"rope_theta":1000000.0,"rope_local_base_freq":10000.0,)"
       R"("rope_scaling":{"rope_type":"linear","factor":8.0}})"},
      {"smollm2-135m", "HuggingFaceTB/SmolLM2-135M", "smollm2-135m.json",
       R"({"model_type":"llama","hidden_size":576,"num_attention_heads":9,"max_position_embeddings":8192,)"
       R"("rope_theta":100000.0})"},
  };
  return all;
}

const Preset* find_preset(std::string_view name) {
  for (const Preset& p : presets())
    if (name == p.name) return &p;
  return nullptr;
}

Expected<HfConfig> preset_config(const Preset& p) {
  auto c = parse_hf_config(p.config_json);
  if (!c) return bad_request("preset \"" + std::string(p.name) + "\": " + c.error().message);
  if (p.pairing) c.value().pairing = p.pairing;
  return c;
}

Expected<ModelInfo> preset_model(std::string_view name, std::optional<double> seq_len) {
  const Preset* p = find_preset(name);
  if (!p) {
    std::string known;
    for (const Preset& q : presets()) known += (known.empty() ? "" : ", ") + std::string(q.name);
    return bad_request("unknown preset \"" + std::string(name) + "\"; known: " + known);
  }
  auto c = preset_config(*p);
  if (!c) return c.error();
  return derive_model(*c, seq_len);
}

}  // namespace rv
