// A lab's runs one at a time (docs/lab.md): the options of one run, a run's JSON and
// its exact reading back, and a lab result gathered from runs trained elsewhere (threads, Web Workers).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"
#include "core/lab/lab.hpp"

namespace rv {

// The options of the lab's run of method m from seed s: o with methods {m}, seed s, seeds 1. A LabRun of them gives
// exactly the run the whole lab gives for (m, s).
LabOptions lab_run_options(const LabOptions& o, PositionMethod m, std::uint64_t seed);
// Every (method, seed) of o in run order: methods as asked, each through seeds seed .. seed + seeds - 1.
std::vector<std::pair<PositionMethod, std::uint64_t>> lab_run_list(const LabOptions& o);

// One run as the document's "runs" entry writes it (numbers in their shortest exact form).
std::string lab_run_json(const LabSeedRun& r);
// Reads lab_run_json back to an equal run, bit for bit (evaluated: every eval length has its number, as many as
// the options give: 4 * train_len, and the scaled ones for rope with scaling). BadRequest naming the field for
// anything else.
Expected<LabSeedRun> parse_lab_run(std::string_view json, const LabOptions& o, PositionMethod m);

// One run trained elsewhere and what it took.
struct LabGathered {
  PositionMethod method = PositionMethod::Rope;
  LabSeedRun run;
  double seconds = 0, train_seconds = 0;
  long long tokens_trained = 0;
};
// The lab result of o from its runs in any order: methods in o's order, each method's runs in seed order, means
// combined as LabRun does (lab_combine_runs), times and tokens summed. lab_json of it equals the one-thread LabRun's
// document apart from "seconds" and "tokens_per_s". A method with no run yet is left out; runs not of o are ignored.
LabResult lab_gather(const LabOptions& o, std::vector<LabGathered> runs);

// [SECTION] Shared with lab_json
class JsonWriter;
void write_lab_run(JsonWriter& w, const LabSeedRun& r);

}  // namespace rv
