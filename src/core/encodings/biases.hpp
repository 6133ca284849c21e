// The fixed parts of the two relative score biases: ALiBi's slope per head and T5's buckets of distance.
#pragma once

#include <vector>

namespace rv {

// Press et al.'s get_slopes: 2^(-8(n+1)/heads) for a power of two, else the closest power of two's slopes followed
// by every other slope of twice that many                                   # [heads]
std::vector<double> alibi_slopes(int heads);
// T5's causal bucket of distance r = i - j >= 0: r for r < 16, else min(31, 16 + floor(ln(r/16) / ln(8) * 16)).
int t5_bucket(long long r);
inline constexpr int kT5Buckets = 32;

}  // namespace rv
