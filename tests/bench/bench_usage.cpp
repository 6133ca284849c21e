// Google Benchmark: core's rope_usage as the Frequencies in use walk runs it (one layer per call): a Llama-2-7B layer
// (q_proj and k_proj 4096 x 4096 in BF16, 32 heads of 128) from memory, and a SmolLM2-135M-shaped checkpoint (30
// layers, hidden 576, 9 heads, 3 key heads, head_dim 64, BF16) walked layer by layer from a file on disk.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

#include "core/models/json_config.hpp"
#include "core/weights/checkpoint.hpp"
#include "core/weights/rope_usage.hpp"

namespace {

struct Shape {
  int layers, hidden, heads, kv_heads, head_dim;
};
constexpr Shape kLlama2Layer = {1, 4096, 32, 32, 128};
constexpr Shape kSmolLm2 = {30, 576, 9, 3, 64};

// A BF16 safetensors file of the shape's projections and norms, its values seeded bit patterns of about +-0.05,
// written straight as bytes (a 4096-wide layer's 32 M values never pass through doubles).
std::vector<std::uint8_t> bf16_checkpoint(const Shape& m) {
  struct T {
    std::string name;
    long long rows, cols;
  };
  std::vector<T> ts;
  for (int l = 0; l < m.layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    ts.push_back({p + "input_layernorm.weight", 1, m.hidden});
    ts.push_back({p + "self_attn.k_proj.weight", (long long)m.kv_heads * m.head_dim, m.hidden});
    ts.push_back({p + "self_attn.q_proj.weight", (long long)m.heads * m.head_dim, m.hidden});
  }
  std::string header = "{";
  long long at = 0;
  for (const T& t : ts) {
    const long long n = t.rows * t.cols * 2;
    header += (at ? ",\"" : "\"") + t.name + "\":{\"dtype\":\"BF16\",\"shape\":" +
              (t.rows == 1 ? "[" + std::to_string(t.cols) + "]"
                           : "[" + std::to_string(t.rows) + "," + std::to_string(t.cols) + "]") +
              ",\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(at + n) + "]}";
    at += n;
  }
  header += "}";
  while (header.size() % 8) header += ' ';
  std::vector<std::uint8_t> out(8 + header.size() + std::size_t(at));
  for (int i = 0; i < 8; ++i) out[i] = std::uint8_t(std::uint64_t(header.size()) >> (8 * i));
  std::copy(header.begin(), header.end(), out.begin() + 8);
  std::uint32_t s = 1;
  for (std::size_t i = 8 + header.size(); i + 1 < out.size(); i += 2) {
    s = s * 1664525u + 1013904223u;
    const std::uint16_t bits = std::uint16_t(0x3c00 + (s >> 22)) | std::uint16_t((s & 1u) << 15);  // +-(0.008 .. 0.06)
    out[i] = std::uint8_t(bits);
    out[i + 1] = std::uint8_t(bits >> 8);
  }
  return out;
}

rv::HfConfig config_of(const Shape& m) {
  const std::string text = "{\"model_type\": \"llama\", \"hidden_size\": " + std::to_string(m.hidden) +
                           ", \"num_attention_heads\": " + std::to_string(m.heads) + ", \"num_key_value_heads\": " +
                           std::to_string(m.kv_heads) + ", \"head_dim\": " + std::to_string(m.head_dim) +
                           ", \"max_position_embeddings\": 4096, \"rope_theta\": 10000}";
  return rv::parse_hf_config(text).value();
}

// One Llama-2-7B layer from memory: the page's case (its bytes supplied, then measured).
void BM_RopeUsageLlama2Layer(benchmark::State& state) {
  const std::vector<std::uint8_t> bytes = bf16_checkpoint(kLlama2Layer);
  const rv::HfConfig config = config_of(kLlama2Layer);
  rv::Checkpoint c =
      rv::Checkpoint::open_file("m", [&bytes](const std::string&) -> rv::Expected<std::unique_ptr<rv::ByteSource>> {
        return std::unique_ptr<rv::ByteSource>(new rv::MemorySource(bytes));
      }).value();
  for (auto _ : state) benchmark::DoNotOptimize(rv::rope_usage(c, config, {0}).value().q_mean[0]);
}
BENCHMARK(BM_RopeUsageLlama2Layer)->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true);

// SmolLM2-135M's 30 layers, one rope_usage call per layer as the walk makes them, from a file (the desktop's case).
void BM_RopeUsageSmolLm2Walk(benchmark::State& state) {
  const std::string path = "/tmp/rv-bench-smollm2-" + std::to_string(::getpid()) + ".safetensors";
  {
    const std::vector<std::uint8_t> bytes = bf16_checkpoint(kSmolLm2);
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  const rv::HfConfig config = config_of(kSmolLm2);
  for (auto _ : state) {
    rv::Checkpoint c = rv::Checkpoint::open_path(path).value();  // the walk opens it once
    for (int l = 0; l < kSmolLm2.layers; ++l)
      benchmark::DoNotOptimize(rv::rope_usage(c, config, {l}).value().q_mean[0]);
  }
  std::remove(path.c_str());
}
BENCHMARK(BM_RopeUsageSmolLm2Walk)->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true);

}  // namespace
