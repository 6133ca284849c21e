// Helpers shared by the core tests.
#pragma once
#include <Eigen/Core>
#include <cstdint>
#include <string>

#include "core/encodings/learned.hpp"

namespace rv::test {

// n seeded standard normals (core's NormalRng).
inline Eigen::VectorXd randn(int n, std::uint64_t seed) {
  NormalRng rng(seed);
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = rng.normal();
  return v;
}

// Whether `part` occurs in `s`.
inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace rv::test
