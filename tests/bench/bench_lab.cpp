// Google Benchmark: one float32 training step of the lab (LabRun::step) for a prototype-sized model (d_model 64,
// 4 heads, 2 layers, d_ff 256, batch 32, copy, sizes 1..8) and for LabOptions' defaults, in tokens per second of
// CPU time (steady on a shared machine; the Time column is wall time); and the batched forward and backward passes of
// such a step on their own. tests/bench/torch_lab_bench.py times the same step in PyTorch.
#include <benchmark/benchmark.h>

#include "core/lab/lab.hpp"

using namespace rv;

namespace {

// The model and batch of tests/bench/torch_lab_bench.py.
LabOptions prototype() {
  LabOptions o;
  o.methods = {PositionMethod::Rope};
  o.train_len = 8;
  o.d_model = 64;
  o.heads = 4;
  o.layers = 2;
  o.d_ff = 256;
  o.batch = 32;
  return o;
}

// Training steps only: a step cap no benchmark reaches and no bar checks.
void BM_lab_train_step(benchmark::State& state, LabOptions o) {
  o.steps = 100000;
  o.check_every = 0;
  o.methods = {static_cast<PositionMethod>(state.range(0))};
  LabRun run(o);
  run.step();  // the first step after the buffers are sized
  const long long before = run.result().tokens_trained;
  for (auto _ : state) run.step();
  state.counters["tokens_per_s"] =
      benchmark::Counter(static_cast<double>(run.result().tokens_trained - before), benchmark::Counter::kIsRate);
  state.SetLabel(position_method_name(o.methods[0]));
}

// A fixed batch of 32 rows of sizes 1..8 (copy), through batch_forward alone or batch_forward + batch_backward.
void BM_decoder_batch(benchmark::State& state) {
  const bool backward = state.range(0) != 0;
  LabOptions o = prototype();
  const DecoderConfig c = lab_decoder_config(o, PositionMethod::Rope);
  const DecoderWeightsT<float> w = init_decoder_weights<float>(c, 1, 0.1);
  SequenceBatch b;
  NormalRng rng(2);
  for (int n = 1; n <= 8; ++n) append_lab_sequences(b, LabTask::Copy, n, 4, rng);
  DecoderWorkspace<float> ws;
  for (auto _ : state) {
    benchmark::DoNotOptimize(batch_forward(c, w, b, ws, backward));
    if (backward) batch_backward(c, w, b, ws);
  }
  state.counters["tokens_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * b.rows(), benchmark::Counter::kIsRate);
  state.SetLabel(backward ? "forward + backward" : "forward");
}

}  // namespace

BENCHMARK_CAPTURE(BM_lab_train_step, prototype, prototype())->DenseRange(0, 5)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_lab_train_step, defaults, LabOptions())
    ->Arg(static_cast<int>(PositionMethod::Rope))
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_decoder_batch)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
