// RoPE on [B, T, h, d_head] tensors: double-accurate float32 tables + a tight float32 rotation loop, float64 reference.
#include "core/rope_tensor.hpp"

#include <cassert>
#include <cmath>
#include <cstring>

namespace rv {
namespace {
constexpr long long kTableReanchor = 32;  // rows between exact sin/cos in the equally spaced table recurrence

// One row (d_head floats) rotated with c[i], s[i] for pair i.
inline void rotate_row_interleaved(const float* in, float* out, const float* c, const float* s, int half) {
    for (int i = 0; i < half; ++i) {
        const float a = in[2 * i], b = in[2 * i + 1];
        out[2 * i] = a * c[i] - b * s[i];      // x' = x cos - y sin
        out[2 * i + 1] = a * s[i] + b * c[i];  // y' = x sin + y cos
    }
}
inline void rotate_row_half_split(const float* in, float* out, const float* c, const float* s, int half) {
    const float* in_b = in + half;
    float* out_b = out + half;
    for (int i = 0; i < half; ++i) {
        const float a = in[i], b = in_b[i];
        out[i] = a * c[i] - b * s[i];
        out_b[i] = a * s[i] + b * c[i];
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
    table.T = T;
    table.half = static_cast<int>(inv_freq.size());
    const int half = table.half;
    table.cos.resize(static_cast<std::size_t>(T) * half);
    table.sin.resize(static_cast<std::size_t>(T) * half);
    for (int i = 0; i < half; ++i) {
        const double step_c = std::cos(inv_freq[i]), step_s = std::sin(inv_freq[i]);  // e^{i theta}
        double c = 0.0, s = 0.0;
        for (long long t = 0; t < T; ++t) {
            if (t % kTableReanchor == 0) {  // exact anchor keeps the recurrence error ~1e-15
                const double angle = (pos0 + static_cast<double>(t)) * inv_freq[i];
                c = std::cos(angle);
                s = std::sin(angle);
            } else {
                const double cn = c * step_c - s * step_s;  // e^{i(m+1)theta} = e^{i m theta} e^{i theta}
                s = s * step_c + c * step_s;
                c = cn;
            }
            table.cos[static_cast<std::size_t>(t) * half + i] = static_cast<float>(c);
            table.sin[static_cast<std::size_t>(t) * half + i] = static_cast<float>(s);
        }
    }
    return table;
}

void apply_rope_f32(const float* in, float* out, long long B, long long T, long long h, int d_head,
                    const RopeTableF32& table, Pairing p) {
    assert(table.T >= T && table.half == d_head / 2);
    const int half = d_head / 2;
    for (long long b = 0; b < B; ++b)
        for (long long t = 0; t < T; ++t) {
            const float* c = table.cos.data() + t * half;  // freqs_cis[t] broadcast over batch and heads
            const float* s = table.sin.data() + t * half;
            const std::size_t base = static_cast<std::size_t>((b * T + t) * h) * static_cast<std::size_t>(d_head);
            for (long long head = 0; head < h; ++head) {
                const std::size_t off = base + static_cast<std::size_t>(head) * d_head;
                if (p == Pairing::Interleaved) rotate_row_interleaved(in + off, out + off, c, s, half);
                else rotate_row_half_split(in + off, out + off, c, s, half);
            }
        }
}

void apply_rope_f32(float* x, long long B, long long T, long long h, int d_head, const RopeTableF32& table,
                    Pairing p) {
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
                    const double a = row[ab.first], bb = row[ab.second];  // rotate in double, round once
                    row[ab.first] = static_cast<S>(a * c[static_cast<std::size_t>(i)] - bb * s[static_cast<std::size_t>(i)]);
                    row[ab.second] = static_cast<S>(a * s[static_cast<std::size_t>(i)] + bb * c[static_cast<std::size_t>(i)]);
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
