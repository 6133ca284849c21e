// The lesson's section-3 checks (position-offset test, norm preservation, angles, exercise numbers) as data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/shape_trace.hpp"

namespace rv {

struct Check {
  std::string name;    // "learned lookup at position 100"
  bool ok = false;     // the lesson's claim holds
  std::string detail;  // "IndexError: index 100 is out of bounds for dimension 0 with size 10"
};

struct VerifyConfig {
  Dims dims;  // B=2, T=5, h=4, d_head=8, max_position=10
  double base = 10000.0;
  long long position_in = 5;     // inside the table
  long long position_out = 100;  // past max_position - 1
  std::uint64_t seed = 123;
  int exercise_max_position = 2048;  // exercise 1
};

std::vector<Check> lesson_checks(const VerifyConfig& cfg = VerifyConfig{});
bool all_ok(const std::vector<Check>& checks);

}  // namespace rv
