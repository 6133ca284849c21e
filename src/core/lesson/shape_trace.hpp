// The lesson's shape trace for any dims: token ids -> E + P -> Q/K/V -> complex view -> freqs_cis -> Q_rope, K_rope.
#pragma once

#include <string>
#include <vector>

namespace rv {

struct Dims {
  int B = 2, T = 5, h = 4, d_head = 8, V = 100, max_position = 10;
  int d() const { return h * d_head; }  // model width
};

struct ShapeStep {
  std::string name;              // "E[token_ids]"
  std::vector<long long> shape;  // [2, 5, 32]
  std::string note;              // one line of why
};

std::vector<ShapeStep> shape_trace(const Dims& dims);
std::string shape_str(const std::vector<long long>& shape);  // "[2, 5, 4, 8]"

struct ParamCounts {
  long long token_embedding = 0;   // V * d
  long long learned_position = 0;  // max_position * d
  long long rope = 0;              // 0: fixed formula
};
ParamCounts param_counts(const Dims& dims);

}  // namespace rv
