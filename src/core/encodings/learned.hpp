// Learned absolute position embeddings (GPT-2 wpe): a seeded [max_position, d] table, bounds-checked lookup, E + P.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/matrix.hpp"
#include "core/base/random.hpp"
#include "core/base/tensor.hpp"

namespace rv {

struct LearnedTable {
  RowMatrixXd P;  // [max_position, d], row-major like torch's embedding weight (row t contiguous)
  int max_position() const { return static_cast<int>(P.rows()); }
  int d() const { return static_cast<int>(P.cols()); }
};

// Row t of the seeded table: N(0, stddev^2) draws from a stream of its own, so row t never depends on the table's
// size and a table too large to hold can still answer P[t]                        # [d]
Eigen::RowVectorXd learned_row(std::uint64_t seed, long long t, int d, double stddev = 0.02);
// P[t, j] ~ N(0, stddev^2), GPT-2 init std 0.02: row t is learned_row(seed, t, d)  # [max_position, d]
LearnedTable learned_table(int max_position, int d, std::uint64_t seed, double stddev = 0.02);
// P[position] or IndexError "index 100 is out of bounds for dimension 0 with size 10"; negatives are refused with
// the same message (nn.Embedding refuses them too; a PyTorch tensor P[-1] would be the last row)  # [d]
Expected<Eigen::RowVectorXd> learned_lookup(const LearnedTable& table, long long position);
// P[position] of learned_table(max_position, d, seed, stddev) without building it: the same row or IndexError  # [d]
Expected<Eigen::RowVectorXd> learned_lookup_seeded(long long max_position, int d, std::uint64_t seed,
                                                   long long position, double stddev = 0.02);
// P[positions] for several positions; the first bad position decides the error     # [n, d]
Expected<RowMatrixXd> learned_lookup_rows(const LearnedTable& table, const std::vector<long long>& positions);
// max_position * d
long long learned_param_count(int max_position, int d);

// h[b, t] = E[token_ids[b, t]] + P[pos0 + t]: [B, T, d] + [T, d] -> [B, T, d] (broadcast over B).
// token_ids is [B, T] row-major; E is [V, d]. Bad token id or position -> IndexError.
Expected<Tensor3d> learned_embed(const RowMatrixXd& E, const LearnedTable& table,
                                 const std::vector<long long>& token_ids, int B, int T, long long pos0 = 0);

}  // namespace rv
