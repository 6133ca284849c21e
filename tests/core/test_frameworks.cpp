// What each framework does past a position table: exact messages and which row comes back.
#include <doctest/doctest.h>

#include <string>

#include "core/encodings/frameworks.hpp"

using namespace rv;

namespace {
// The entry for one framework and device, found by name; fails the test when missing.
FrameworkLookup find(long long t, long long n, const std::string& framework, const std::string& device) {
  for (const FrameworkLookup& f : framework_lookups(t, n))
    if (std::string(f.framework).find(framework) != std::string::npos && device == f.device) return f;
  FAIL("no entry for " << framework << " on " << device);
  return {};
}
}  // namespace

TEST_CASE("frameworks: PyTorch tensor indexing, the lesson's pos_table[100]") {
  const FrameworkLookup past = find(100, 10, "tensor indexing", "any");
  CHECK(past.outcome == LookupOutcome::Error);
  CHECK(past.text == "IndexError: index 100 is out of bounds for dimension 0 with size 10");
  CHECK(find(10, 10, "tensor indexing", "any").text ==
        "IndexError: index 10 is out of bounds for dimension 0 with size 10");
  const FrameworkLookup last = find(-1, 10, "tensor indexing", "any");  // wraps, does not raise
  CHECK(last.outcome == LookupOutcome::Row);
  CHECK(last.row == 9);
  CHECK(last.text == "returns P[9] (-1 wraps to 9)");
  CHECK(find(-10, 10, "tensor indexing", "any").row == 0);
  const FrameworkLookup far = find(-11, 10, "tensor indexing", "any");
  CHECK(far.outcome == LookupOutcome::Error);
  CHECK(far.text == "IndexError: index -11 is out of bounds for dimension 0 with size 10");
  const FrameworkLookup in = find(5, 10, "tensor indexing", "any");
  CHECK(in.outcome == LookupOutcome::Row);
  CHECK(in.row == 5);
  CHECK(in.text == "returns P[5]");
}

TEST_CASE("frameworks: nn.Embedding (Hugging Face GPT-2) rejects every index outside [0, n)") {
  for (long long t : {10LL, 100LL, -1LL, -11LL}) {
    INFO("t = " << t);
    const FrameworkLookup cpu = find(t, 10, "nn.Embedding", "CPU");
    CHECK(cpu.outcome == LookupOutcome::Error);
    CHECK(cpu.text == "IndexError: index out of range in self");
    const FrameworkLookup cuda = find(t, 10, "nn.Embedding", "CUDA");
    CHECK(cuda.outcome == LookupOutcome::Error);
    CHECK(cuda.text == "RuntimeError: CUDA error: device-side assert triggered");
  }
  CHECK(find(9, 10, "nn.Embedding", "CPU").row == 9);
  CHECK(find(0, 1, "nn.Embedding", "CUDA").outcome == LookupOutcome::Row);
}

TEST_CASE("frameworks: tf.gather (OpenAI GPT-2) raises on CPU, returns zeros on GPU") {
  const FrameworkLookup cpu = find(100, 10, "tf.gather", "CPU");
  CHECK(cpu.outcome == LookupOutcome::Error);
  CHECK(cpu.text == "InvalidArgumentError: indices[0] = 100 is not in [0, 10)");
  CHECK(find(-1, 10, "tf.gather", "CPU").text == "InvalidArgumentError: indices[0] = -1 is not in [0, 10)");
  for (long long t : {10LL, 100LL, -1LL}) {
    const FrameworkLookup gpu = find(t, 10, "tf.gather", "GPU");
    CHECK(gpu.outcome == LookupOutcome::Zeros);
    CHECK(gpu.silent());
  }
  CHECK(find(3, 10, "tf.gather", "GPU").row == 3);
}

TEST_CASE("frameworks: JAX take fills NaN, JAX indexing clamps, both wrap negatives like NumPy") {
  CHECK(find(100, 10, "jnp.take", "any").outcome == LookupOutcome::NaNs);
  CHECK(find(10, 10, "jnp.take", "any").outcome == LookupOutcome::NaNs);
  CHECK(find(-11, 10, "jnp.take", "any").outcome == LookupOutcome::NaNs);
  CHECK(find(-1, 10, "jnp.take", "any").row == 9);
  const FrameworkLookup clamp = find(100, 10, "array indexing", "any");
  CHECK(clamp.outcome == LookupOutcome::Row);
  CHECK(clamp.row == 9);
  CHECK(clamp.text == "returns P[9] (100 is clamped to 9)");
  CHECK(find(-1, 10, "array indexing", "any").row == 9);
  CHECK(find(-11, 10, "array indexing", "any").row == 0);
  CHECK(find(1 << 20, 1024, "array indexing", "any").row == 1023);
}

TEST_CASE("frameworks: inside the table every framework returns that row") {
  for (long long n : {1LL, 10LL, 1024LL})
    for (long long t : {0LL, n - 1}) {
      const std::vector<FrameworkLookup> all = framework_lookups(t, n);
      CHECK(all.size() == 7);
      for (const FrameworkLookup& f : all) {
        CHECK(f.outcome == LookupOutcome::Row);
        CHECK(f.row == t);
      }
    }
}
