// Google Benchmark: float32 RoPE on [1, 4096, 32, 128] (both pairings) vs a memcpy of the same bytes, score curve,
// lookup.
#include <benchmark/benchmark.h>

#include <cstring>
#include <utility>
#include <vector>

#include "core/encodings/learned.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/rope_tensor.hpp"

using namespace rv;

namespace {
constexpr long long B = 1, T = 4096, H = 32;
constexpr int D = 128;
constexpr std::size_t N = static_cast<std::size_t>(B * T * H * D);  // 16,777,216 floats = 64 MiB

std::vector<float> random_tensor() {
  NormalRng rng(1);
  std::vector<float> x(N);
  for (float& v : x) v = static_cast<float>(rng.normal());
  return x;
}

// Bytes of the tensor per iteration; memcpy and the in-place rotation both read and write each byte once.
void set_bytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * N * sizeof(float));
}

void BM_memcpy_baseline(benchmark::State& state) {
  const std::vector<float> src = random_tensor();
  std::vector<float> dst(N);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), N * sizeof(float));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state);
}

void BM_rope_f32_inplace(benchmark::State& state) {
  const Pairing p = state.range(0) == 0 ? Pairing::Interleaved : Pairing::HalfSplit;
  std::vector<float> x = random_tensor();
  const RopeTableF32 table = rope_table_f32(0.0, T, rope_inv_freq(D, 10000.0));  // freqs_cis, precomputed once
  for (auto _ : state) {
    apply_rope_f32(x.data(), B, T, H, D, table, p);
    benchmark::ClobberMemory();
  }
  set_bytes(state);
  state.SetLabel(pairing_name(p));
}

void BM_rope_f32_out_of_place(benchmark::State& state) {
  const Pairing p = state.range(0) == 0 ? Pairing::Interleaved : Pairing::HalfSplit;
  const std::vector<float> x = random_tensor();
  std::vector<float> y(N);
  const RopeTableF32 table = rope_table_f32(0.0, T, rope_inv_freq(D, 10000.0));
  for (auto _ : state) {
    apply_rope_f32(x.data(), y.data(), B, T, H, D, table, p);
    benchmark::ClobberMemory();
  }
  set_bytes(state);
  state.SetLabel(pairing_name(p));
}

void BM_rope_table_f32(benchmark::State& state) {  // precompute_freqs_cis for T = 4096, d_head = 128
  const Eigen::VectorXd theta = rope_inv_freq(D, 10000.0);
  RopeTableF32 table;  // refilled in place: no allocation after the first iteration
  for (auto _ : state) {
    fill_rope_table_f32(table, 0.0, T, theta);
    benchmark::DoNotOptimize(table.cos.data());
  }
}

// A query and a key of d normal entries (the same pair in every benchmark that asks).
std::pair<Eigen::VectorXd, Eigen::VectorXd> random_query_key(int d) {
  NormalRng rng(2);
  Eigen::VectorXd q(d), k(d);
  for (int i = 0; i < d; ++i) {
    q[i] = rng.normal();
    k[i] = rng.normal();
  }
  return {q, k};
}

void BM_score_curve_65536_d256(benchmark::State& state) {
  const auto [q, k] = random_query_key(256);
  const Eigen::VectorXd theta = rope_inv_freq(256, 10000.0);
  std::vector<double> out;
  out.reserve(65536);
  for (auto _ : state) {
    rope_score_curve(q, k, theta, Pairing::Interleaved, 1000.0, -32768, 32767, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 65536);
}

void BM_score_direct_65536_d256(benchmark::State& state) {  // the naive way: sin/cos per point per pair
  const auto [q, k] = random_query_key(256);
  const Eigen::VectorXd theta = rope_inv_freq(256, 10000.0);
  for (auto _ : state) {
    double acc = 0;
    for (long long r = -32768; r < 32768; ++r) acc += rope_score(q, k, 1000.0 + r, 1000.0, theta, Pairing::Interleaved);
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 65536);
}

void BM_learned_lookup(benchmark::State& state) {  // one row P[t] of GPT-2's [1024, 768] wpe
  const LearnedTable table = learned_table(1024, 768, 3);
  long long t = 0;
  for (auto _ : state) {
    auto row = learned_lookup(table, t);
    benchmark::DoNotOptimize(row);
    t = (t + 37) & 1023;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_learned_lookup_out_of_range(benchmark::State& state) {  // the IndexError path
  const LearnedTable table = learned_table(10, 32, 3);
  for (auto _ : state) {
    auto row = learned_lookup(table, 100);
    benchmark::DoNotOptimize(row);
  }
}

void BM_learned_embed_1x1024x768(benchmark::State& state) {  // E[token_ids] + P[positions]  # [1, 1024, 768]
  NormalRng rng(4);
  RowMatrixXd E(50257, 768);
  for (Eigen::Index i = 0; i < E.size(); ++i) E.data()[i] = 0.02 * rng.normal();
  const LearnedTable table = learned_table(1024, 768, 3);
  std::vector<long long> ids(1024);
  for (auto& id : ids) id = static_cast<long long>(rng.next_u64() % 50257);
  for (auto _ : state) {
    auto h = learned_embed(E, table, ids, 1, 1024);
    benchmark::DoNotOptimize(h);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 1024 * 768 * 8);
}
}  // namespace

BENCHMARK(BM_memcpy_baseline)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rope_f32_inplace)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rope_f32_out_of_place)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rope_table_f32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_score_curve_65536_d256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_score_direct_65536_d256)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_learned_lookup);
BENCHMARK(BM_learned_lookup_out_of_range);
BENCHMARK(BM_learned_embed_1x1024x768)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
