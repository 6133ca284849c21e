// RoPE on [B, T, h, d_head] tensors: double-accurate float32 tables + a tight float32 rotation loop, float64 reference.
#include "core/rope/rope_tensor.hpp"

#include <cassert>
#include <cmath>
#include <cstring>

namespace rv {
namespace {
constexpr long long kTableReanchor = 32;  // rows between exact sin/cos in the equally spaced table recurrence

// One row (d_head floats) rotated with c[i], s[i] for pair i. __restrict: the tables never alias the tensor.
#if defined(__GNUC__) || defined(__clang__)
#define RV_RESTRICT __restrict
#else
#define RV_RESTRICT
#endif
inline void rotate_row_interleaved(float* RV_RESTRICT x, const float* RV_RESTRICT c, const float* RV_RESTRICT s,
                                   int half) {
  for (int i = 0; i < half; ++i) {
    const RotatedPair<float> r = rotate_pair(x[2 * i], x[2 * i + 1], c[i], s[i]);
    x[2 * i] = r.a;
    x[2 * i + 1] = r.b;
  }
}
inline void rotate_row_half_split(float* RV_RESTRICT x, const float* RV_RESTRICT c, const float* RV_RESTRICT s,
                                  int half) {
  float* RV_RESTRICT xb = x + half;
  for (int i = 0; i < half; ++i) {
    const RotatedPair<float> r = rotate_pair(x[i], xb[i], c[i], s[i]);
    x[i] = r.a;
    xb[i] = r.b;
  }
}
inline void rotate_row_interleaved(const float* RV_RESTRICT in, float* RV_RESTRICT out, const float* RV_RESTRICT c,
                                   const float* RV_RESTRICT s, int half) {
  for (int i = 0; i < half; ++i) {
    const RotatedPair<float> r = rotate_pair(in[2 * i], in[2 * i + 1], c[i], s[i]);
    out[2 * i] = r.a;
    out[2 * i + 1] = r.b;
  }
}
inline void rotate_row_half_split(const float* RV_RESTRICT in, float* RV_RESTRICT out, const float* RV_RESTRICT c,
                                  const float* RV_RESTRICT s, int half) {
  for (int i = 0; i < half; ++i) {
    const RotatedPair<float> r = rotate_pair(in[i], in[i + half], c[i], s[i]);
    out[i] = r.a;
    out[i + half] = r.b;
  }
}
}  // namespace

RopeTableF32 rope_table_f32(const std::vector<double>& positions, const Eigen::VectorXd& inv_freq) {
  RopeTableF32 table;
  table.T = static_cast<long long>(positions.size());
  table.half = static_cast<int>(inv_freq.size());
  const std::size_t n = positions.size() * static_cast<std::size_t>(table.half);
  table.cos.resize(n);
  table.sin.resize(n);
  for (std::size_t t = 0; t < positions.size(); ++t)
    for (int i = 0; i < table.half; ++i) {
      const double angle = positions[t] * inv_freq[i];  // double angle, rounded to float once at the end
      table.cos[t * table.half + i] = static_cast<float>(std::cos(angle));
      table.sin[t * table.half + i] = static_cast<float>(std::sin(angle));
    }
  return table;
}

RopeTableF32 rope_table_f32(double pos0, long long T, const Eigen::VectorXd& inv_freq) {
  RopeTableF32 table;
  fill_rope_table_f32(table, pos0, T, inv_freq);
  return table;
}

void fill_rope_table_f32(RopeTableF32& table, double pos0, long long T, const Eigen::VectorXd& inv_freq) {
  table.T = T;
  table.half = static_cast<int>(inv_freq.size());
  const std::size_t half = static_cast<std::size_t>(table.half);
  table.cos.resize(static_cast<std::size_t>(T) * half);
  table.sin.resize(static_cast<std::size_t>(T) * half);
  constexpr std::size_t kStack = 256;  // recurrence state on the stack (8 KiB) for d_head <= 512
  double stack_buf[4 * kStack];
  std::vector<double> heap_buf(half > kStack ? 4 * half : 0);
  double* c = half > kStack ? heap_buf.data() : stack_buf;
  double *s = c + half, *step_c = s + half, *step_s = step_c + half;
  for (std::size_t i = 0; i < half; ++i) {
    step_c[i] = std::cos(inv_freq[static_cast<Eigen::Index>(i)]);  // e^{i theta}
    step_s[i] = std::sin(inv_freq[static_cast<Eigen::Index>(i)]);
  }
  for (long long t = 0; t < T; ++t) {
    float* cr = table.cos.data() + static_cast<std::size_t>(t) * half;
    float* sr = table.sin.data() + static_cast<std::size_t>(t) * half;
    if (t % kTableReanchor == 0) {  // exact anchor keeps the recurrence error ~1e-15
      for (std::size_t i = 0; i < half; ++i) {
        const double angle = (pos0 + static_cast<double>(t)) * inv_freq[static_cast<Eigen::Index>(i)];
        c[i] = std::cos(angle);
        s[i] = std::sin(angle);
      }
    } else {
      for (std::size_t i = 0; i < half; ++i) {  // e^{i(m+1)theta} = e^{i m theta} e^{i theta}: (cos, sin) turned
        const RotatedPair<double> next = rotate_pair(c[i], s[i], step_c[i], step_s[i]);
        c[i] = next.a;
        s[i] = next.b;
      }
    }
    for (std::size_t i = 0; i < half; ++i) {
      cr[i] = static_cast<float>(c[i]);
      sr[i] = static_cast<float>(s[i]);
    }
  }
}

void apply_rope_f32(const float* in, float* out, long long B, long long T, long long h, int d_head,
                    const RopeTableF32& table, Pairing p) {
  assert(table.T >= T && table.half == d_head / 2);
  const int half = d_head / 2;
  const bool inplace = in == out;
  for (long long b = 0; b < B; ++b)
    for (long long t = 0; t < T; ++t) {
      const float* c = table.cos.data() + t * half;  // freqs_cis[t] broadcast over batch and heads
      const float* s = table.sin.data() + t * half;
      const std::size_t row0 = static_cast<std::size_t>((b * T + t) * h) * static_cast<std::size_t>(d_head);
      for (long long head = 0; head < h; ++head) {
        const std::size_t off = row0 + static_cast<std::size_t>(head) * static_cast<std::size_t>(d_head);
        if (inplace) {
          if (p == Pairing::Interleaved)
            rotate_row_interleaved(out + off, c, s, half);
          else
            rotate_row_half_split(out + off, c, s, half);
        } else {
          if (p == Pairing::Interleaved)
            rotate_row_interleaved(in + off, out + off, c, s, half);
          else
            rotate_row_half_split(in + off, out + off, c, s, half);
        }
      }
    }
}

void apply_rope_f32(float* x, long long B, long long T, long long h, int d_head, const RopeTableF32& table, Pairing p) {
  apply_rope_f32(x, x, B, T, h, d_head, table, p);
}

namespace {
template <class S>
void apply_rope_tensor_impl(Tensor<S, 4>& x, const std::vector<double>& positions, const Eigen::VectorXd& inv_freq,
                            Pairing p) {
  const long long B = x.shape[0], T = x.shape[1], h = x.shape[2];
  const int d = static_cast<int>(x.shape[3]), half = d / 2;
  assert(static_cast<long long>(positions.size()) >= T && inv_freq.size() == half);
  std::vector<double> c(static_cast<std::size_t>(half)), s(static_cast<std::size_t>(half));
  for (long long t = 0; t < T; ++t) {
    for (int i = 0; i < half; ++i) {
      const double angle = positions[static_cast<std::size_t>(t)] * inv_freq[i];
      c[static_cast<std::size_t>(i)] = std::cos(angle);
      s[static_cast<std::size_t>(i)] = std::sin(angle);
    }
    for (long long b = 0; b < B; ++b)
      for (long long head = 0; head < h; ++head) {
        S* row = &x(b, t, head, 0);
        for (int i = 0; i < half; ++i) {
          const auto ab = pair_indices(i, d, p);
          const std::size_t u = static_cast<std::size_t>(i);  // rotated in double, rounded once
          const RotatedPair<double> r = rotate_pair<double>(row[ab.first], row[ab.second], c[u], s[u]);
          row[ab.first] = static_cast<S>(r.a);
          row[ab.second] = static_cast<S>(r.b);
        }
      }
  }
}
}  // namespace

void apply_rope_tensor(Tensor4d& x, const std::vector<double>& positions, const Eigen::VectorXd& inv_freq, Pairing p) {
  apply_rope_tensor_impl(x, positions, inv_freq, p);
}
void apply_rope_tensor(Tensor4f& x, const std::vector<double>& positions, const Eigen::VectorXd& inv_freq, Pairing p) {
  apply_rope_tensor_impl(x, positions, inv_freq, p);
}

Qkv apply_rope_qkv(Qkv in, const std::vector<double>& positions, const Eigen::VectorXd& inv_freq, Pairing p) {
  apply_rope_tensor(in.q, positions, inv_freq, p);  // Q_rope  # [B, T, h, d_head]
  apply_rope_tensor(in.k, positions, inv_freq, p);  // K_rope  # [B, T, h, d_head]
  return in;                                        // V untouched: values carry content, not position
}

}  // namespace rv
