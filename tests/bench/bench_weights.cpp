// Google Benchmark: the learned-table analysis of a GPT-2-sized table (1024 x 768), spectrum included (and the SVD it
// replaced), the trained-table panel's cosine heatmap,
// and the safetensors decode of it in F32 and BF16.
#include <benchmark/benchmark.h>

#include <Eigen/SVD>
#include <cmath>

#include "core/encodings/learned.hpp"

#include "core/weights/learned_table.hpp"

namespace {
rv::RowMatrixXd gpt2_sized_table() {
  rv::RowMatrixXd P(1024, 768);
  for (int t = 0; t < 1024; ++t)
    for (int j = 0; j < 768; ++j) P(t, j) = std::sin(0.01 * t * (1 + j % 7)) + 0.01 * std::cos(0.37 * (t * 768 + j));
  return P;
}

void BM_LearnedTableAnalysis(benchmark::State& state) {
  const rv::RowMatrixXd P = gpt2_sized_table();
  for (auto _ : state) benchmark::DoNotOptimize(rv::analyze_learned_table(P).rank90);
}
BENCHMARK(BM_LearnedTableAnalysis)->Unit(benchmark::kMillisecond);

// The random counterpart the trained-table panel analyses beside a GPT-2 table: no low-rank structure.
void BM_LearnedTableAnalysisRandom(benchmark::State& state) {
  const rv::RowMatrixXd P = rv::learned_table(1024, 768, 123).P;
  for (auto _ : state) benchmark::DoNotOptimize(rv::analyze_learned_table(P).rank90);
}
BENCHMARK(BM_LearnedTableAnalysisRandom)->Unit(benchmark::kMillisecond);

// The route the analysis took before (one BDCSVD of the centred table, thin U): its spectrum alone, for comparison.
void BM_LearnedTableSvdBefore(benchmark::State& state) {
  const rv::RowMatrixXd P = gpt2_sized_table();
  for (auto _ : state) {
    const rv::RowMatrixXd C = P.rowwise() - P.colwise().mean();
    Eigen::BDCSVD<Eigen::MatrixXd> svd(C, Eigen::ComputeThinU);
    benchmark::DoNotOptimize(svd.singularValues()[0]);
  }
}
BENCHMARK(BM_LearnedTableSvdBefore)->Unit(benchmark::kMillisecond);

// The trained-table panel's cosine heatmap: 128 x 128 sampled rows.
void BM_SampledCosines(benchmark::State& state) {
  const rv::RowMatrixXd P = gpt2_sized_table();
  for (auto _ : state) benchmark::DoNotOptimize(rv::sampled_cosines(P, 128)(0, 0));
}
BENCHMARK(BM_SampledCosines)->Unit(benchmark::kMillisecond);

void BM_DecodeTable(benchmark::State& state, const char* dtype) {
  const rv::RowMatrixXd P = gpt2_sized_table();
  const auto bytes = rv::write_safetensors(
      {{"wpe.weight", {1024, 768}, std::vector<double>(P.data(), P.data() + P.size())}}, dtype, {});
  rv::MemorySource src(bytes.value());
  const rv::SafetensorsHeader h = rv::read_safetensors_header(src, "f").value();
  for (auto _ : state) benchmark::DoNotOptimize(rv::read_tensor(src, h.tensors[0])->sum());
}
BENCHMARK_CAPTURE(BM_DecodeTable, F32, "F32")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeTable, BF16, "BF16")->Unit(benchmark::kMillisecond);
}  // namespace
