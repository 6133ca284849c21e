// ALiBi's slopes (Press et al., get_slopes) and T5's causal distance buckets (Raffel et al., 32 buckets to 128).
#include "core/encodings/biases.hpp"

#include <cmath>

namespace rv {

std::vector<double> alibi_slopes(int heads) {
  std::vector<double> out;
  if (heads < 1) return out;
  int p = 1;  // closest power of two <= heads
  while (p * 2 <= heads) p *= 2;
  for (int n = 0; n < p; ++n) out.push_back(std::pow(2.0, -8.0 * (n + 1) / p));
  if (p == heads) return out;
  const std::vector<double> twice = alibi_slopes(2 * p);
  for (int n = 0; static_cast<int>(out.size()) < heads; n += 2) out.push_back(twice[static_cast<std::size_t>(n)]);
  return out;
}

int t5_bucket(long long r) {
  if (r < 16) return static_cast<int>(r < 0 ? 0 : r);
  const double large = 16.0 + std::floor(std::log(static_cast<double>(r) / 16.0) / std::log(128.0 / 16.0) * 16.0);
  return large >= 31.0 ? 31 : static_cast<int>(large);
}

}  // namespace rv
