// Google Benchmark: core's tokenizer encode of 1 MB of English and of mixed-script text (tokenize_texts.mjs writes
// them to $RV_BENCH_TEXTS, default build/bench) with three fixture tokenizers, best of 3, in MB/s and tokens/s.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "core/tokenize/tokenizer.hpp"

namespace {
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return in ? s.str() : std::string();
}

// One tokenizer on one text: each iteration encodes it three times, and the best of the three is its time.
void BM_Encode(benchmark::State& state, const char* tokenizer, const char* text_name) {
  const char* dir = std::getenv("RV_BENCH_TEXTS");
  const std::string path = std::string(dir ? dir : RV_SOURCE_DIR "/build/bench") + "/tokenize_" + text_name + ".txt";
  const std::string text = read_file(path);
  if (text.empty()) return state.SkipWithError(("no " + path + ": run node tests/bench/tokenize_texts.mjs").c_str());
  auto t = rv::tokenize::parse_tokenizer(
      read_file(RV_FIXTURES_DIR "/tokenizers/" + std::string(tokenizer) + "/tokenizer.json"));
  if (!t) return state.SkipWithError(t.error().message.c_str());
  double best = 1e30;
  std::size_t tokens = 0;
  for (auto _ : state) {
    for (int run = 0; run < 3; ++run) {
      const auto started = std::chrono::steady_clock::now();
      const rv::tokenize::Encoding e = rv::tokenize::encode(*t, text);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      best = std::min(best, s);
      tokens = e.ids.size();
      benchmark::DoNotOptimize(e.ids.data());
    }
    state.SetIterationTime(best);
  }
  state.counters["MB_per_s"] = static_cast<double>(text.size()) / best / 1e6;
  state.counters["tokens_per_s"] = static_cast<double>(tokens) / best;
  state.counters["tokens"] = static_cast<double>(tokens);
}
}  // namespace

#define RV_ENCODE(name, tokenizer, text) \
  BENCHMARK_CAPTURE(BM_Encode, name, tokenizer, text)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond)
RV_ENCODE(smollm2_english, "smollm2_digits_bytelevel", "english");
RV_ENCODE(smollm2_mixed, "smollm2_digits_bytelevel", "mixed");
RV_ENCODE(llama2_english, "llama2_spm_bytefallback", "english");
RV_ENCODE(llama2_mixed, "llama2_spm_bytefallback", "mixed");
RV_ENCODE(llama3_english, "llama3_split_bytelevel", "english");
RV_ENCODE(llama3_mixed, "llama3_split_bytelevel", "mixed");
