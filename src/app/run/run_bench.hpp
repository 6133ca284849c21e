// Run it's passkey bench (docs/passkey.md): its axes from the settings, what it measured in words and in state().run,
// and its view, one accuracy grid per rope (bench_view.cpp).
#pragma once

#include <string>
#include <vector>

#include "app/run/run_session.hpp"
#include "core/base/json_writer.hpp"

namespace rv {

// The bench's axes for the settings: lengths length * k / n (k = 1..n), depths (k - 1) / (n - 1) (0.5 alone).
std::vector<long long> bench_lengths(const RunSettings& s);
std::vector<double> bench_depths(const RunSettings& s);

// "Passkey (...): no scaling found 100% of the keys within the trained 512 tokens and 0% past them; YaRN x4 ..."
// from the cells done; "" before any.
std::string bench_sentence(const RunSession& s);
// What the grid measures and what it does not, in one sentence (drawn under the grids).
extern const char* const kBenchCaveat;
// state().run.bench: lengths, depths, trials, and per rope its accuracy and key_logprob grids (null where not done)
// and the cells' errors; null without a bench.
void bench_state(JsonWriter& j, const RunSession& s);

// The grids side by side (length across, depth down), the context marked, the key's log-probability on hover; a
// switch colours them by it instead of the share found.
void bench_view(RunSession& s, float width);

}  // namespace rv
