// Causal attention for the forward pass (core/infer): softmax(q k^T scaled) v per head, one query row at a time, so
// no T x T matrix is held; what the rows add up by distance and on position 0 when asked.
#pragma once

#include "core/infer/forward.hpp"
#include "core/infer/layer_ops.hpp"

namespace rv {

struct AttendOptions {
  int heads, kv_heads, head_dim;  // query head h reads key head h / (heads / kv_heads)
  float scale;                    // scores times this
  bool divide;                    // scores / sqrt(head_dim) instead (GPT-2, GPT-J)
  float softcap;                  // Gemma 2: cap * tanh(score / cap); 0 for none
  long long window;               // > 0: a query sees the keys at t - s < window only (sliding layers)
  int threads;                    // heads shared out (core/infer/parallel.hpp)
};

// o [T, heads * head_dim] from q [T, heads * head_dim], k and v [T, kv_heads * head_dim]; stats gain a layer when on.
RowMatrixXf attend(const RowMatrixXf& q, const RowMatrixXf& k, const RowMatrixXf& v, const AttendOptions& how,
                   AttentionStats& stats);

}  // namespace rv
