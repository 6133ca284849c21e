// The lesson's section-3 checks (position-offset test, norm preservation, angles, exercise numbers) as data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/lesson/shape_trace.hpp"

namespace rv {

struct Check {
  std::string name;    // "learned lookup at position 100"
  bool ok = false;     // the lesson's claim holds
  std::string detail;  // "IndexError: index 100 is out of bounds for dimension 0 with size 10"
};

struct VerifyConfig {
  Dims dims;  // B=2, T=5, h=4, d_head=8, max_position=10
  double base = 10000.0;
  long long position_in = 5;     // the lesson's probe inside the table
  long long position_out = 100;  // the lesson's probe past max_position - 1
  // Fit the probes to the table, so a setting never makes a check fail: in range min(position_in,
  // max_position - 1), at the edge max_position - 1, past the table max(position_out, max_position).
  // With the lesson's 10 rows that is 5, 9 and 100. false: probe position_in and position_out as given.
  bool fit_to_table = true;
  std::uint64_t seed = 123;
  int exercise_max_position = 2048;  // exercise 1
};

// The three learned-table probes of the position-offset test for a table of max_position rows.
struct OffsetProbes {
  long long in_range, edge, past;
};
OffsetProbes offset_probes(const VerifyConfig& cfg);

std::vector<Check> lesson_checks(const VerifyConfig& cfg = VerifyConfig{});
bool all_ok(const std::vector<Check>& checks);

}  // namespace rv
