// The one random stream of core (the tables' init, the lab's weights, batches and tests): the same numbers on
// every platform and in the lab's PyTorch port.
#pragma once
#include <cstdint>

namespace rv {

// Deterministic, platform-independent normal(0, stddev) draws: splitmix64 + Marsaglia polar with our own log.
class NormalRng {
 public:
  explicit NormalRng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next_u64();
  double uniform();  // in [0, 1), 53 random bits
  double normal();   // N(0, 1)

 private:
  std::uint64_t state_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};
double portable_log(double x);  // ln(x) for x > 0 using only + - * / (bit-identical on every IEEE platform)

}  // namespace rv
