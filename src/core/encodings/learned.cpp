// Learned absolute positions: seeded GPT-2-style table (std 0.02), bounds-checked lookup, and E[token] + P[t].
#include "core/encodings/learned.hpp"

#include <cmath>

namespace rv {

Eigen::RowVectorXd learned_row(std::uint64_t seed, long long t, int d, double stddev) {
  NormalRng rng(
      NormalRng(seed ^ (static_cast<std::uint64_t>(t) * 0xD1B54A32D192ED03ull)).next_u64());  // row t's stream
  Eigen::RowVectorXd row(d);                                                                  // [d]
  for (int j = 0; j < d; ++j) row[j] = stddev * rng.normal();
  return row;
}

LearnedTable learned_table(int max_position, int d, std::uint64_t seed, double stddev) {
  LearnedTable table;
  table.P.resize(max_position, d);  // [max_position, d]
  for (int t = 0; t < max_position; ++t) table.P.row(t) = learned_row(seed, t, d, stddev);
  return table;
}

Expected<Eigen::RowVectorXd> learned_lookup(const LearnedTable& table, long long position) {
  const long long size = table.P.rows();
  if (position < 0 || position >= size) return index_error(position, size);  // negatives refused, as nn.Embedding does
  return Eigen::RowVectorXd(table.P.row(static_cast<Eigen::Index>(position)));  // P[t]  # [d]
}

Expected<Eigen::RowVectorXd> learned_lookup_seeded(long long max_position, int d, std::uint64_t seed,
                                                   long long position, double stddev) {
  if (position < 0 || position >= max_position) return index_error(position, max_position);
  return learned_row(seed, position, d, stddev);
}

Expected<RowMatrixXd> learned_lookup_rows(const LearnedTable& table, const std::vector<long long>& positions) {
  const long long size = table.P.rows();
  for (long long pos : positions)
    if (pos < 0 || pos >= size) return index_error(pos, size);
  RowMatrixXd rows(static_cast<Eigen::Index>(positions.size()), table.P.cols());  // [n, d]
  for (std::size_t r = 0; r < positions.size(); ++r)
    rows.row(static_cast<Eigen::Index>(r)) = table.P.row(static_cast<Eigen::Index>(positions[r]));
  return rows;
}

long long learned_param_count(int max_position, int d) {
  return static_cast<long long>(max_position) * static_cast<long long>(d);
}

Expected<Tensor3d> learned_embed(const RowMatrixXd& E, const LearnedTable& table,
                                 const std::vector<long long>& token_ids, int B, int T, long long pos0) {
  if (B < 0 || T < 0 || token_ids.size() != static_cast<std::size_t>(B) * static_cast<std::size_t>(T))
    return bad_request("token_ids must have B*T entries");
  if (E.cols() != table.P.cols()) return bad_request("E and P must have the same width d");
  const long long V = E.rows(), size = table.P.rows();
  for (int t = 0; t < T; ++t)
    if (pos0 + t < 0 || pos0 + t >= size) return index_error(pos0 + t, size);
  for (long long id : token_ids)
    if (id < 0 || id >= V) return index_error(id, V);
  const std::size_t d = static_cast<std::size_t>(E.cols());
  Tensor3d h({B, T, static_cast<long long>(d)});  // [B, T, d]
  double* out = h.ptr();
  for (std::size_t bt = 0; bt < token_ids.size(); ++bt, out += d) {
    const double* e = E.data() + static_cast<std::size_t>(token_ids[bt]) * d;  // E[token]
    const double* p =
        table.P.data() +
        static_cast<std::size_t>(pos0 + static_cast<long long>(bt % static_cast<std::size_t>(T))) * d;  // P[t]
    for (std::size_t j = 0; j < d; ++j) out[j] = e[j] + p[j];
  }
  return h;
}

}  // namespace rv
