// Lab options the core tests train with: small models and few steps, one seed unless a test asks for more.
#pragma once
#include <vector>

#include "core/lab/lab.hpp"

namespace rv::test {

// A quick run: a small model, few steps.
inline LabOptions small(std::vector<PositionMethod> methods, int steps, int train_len = 3) {
  LabOptions o;
  o.methods = std::move(methods);
  o.steps = steps;
  o.train_len = train_len;
  o.d_model = 16;
  o.heads = 2;
  o.layers = 1;
  o.d_ff = 32;
  o.batch = 8;
  o.warmup = 5;
  o.eval_count = 20;
  o.seeds = 1;  // one run per method unless a test asks for more
  return o;
}

// Sizes 1..2, a model big enough to learn them quickly: d_model 32, 2 heads, 2 layers, d_ff 64, batch 16, lr 1e-2.
inline LabOptions learnable(std::vector<PositionMethod> methods, int steps) {
  LabOptions o = small(std::move(methods), steps, 2);
  o.d_model = 32;
  o.layers = 2;
  o.d_ff = 64;
  o.batch = 16;
  o.lr = 1e-2;
  o.warmup = 20;
  o.eval_count = 50;
  return o;
}


}  // namespace rv::test
