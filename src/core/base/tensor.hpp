// A dense row-major N-d tensor (flat std::vector + shape), enough to mirror torch's [B, T, h, d_head] layouts.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace rv {

template <class S, int N>
struct Tensor {
  std::array<long long, N> shape{};  // e.g. [B, T, h, d_head]
  std::vector<S> data;               // row-major, last index fastest

  Tensor() = default;
  explicit Tensor(std::array<long long, N> dims, S fill = S(0)) : shape(dims), data(count(dims), fill) {}

  static std::size_t count(const std::array<long long, N>& dims) {
    std::size_t n = 1;
    for (long long d : dims) n *= static_cast<std::size_t>(d);
    return n;
  }
  std::size_t size() const { return data.size(); }
  S* ptr() { return data.data(); }
  const S* ptr() const { return data.data(); }

  template <class... I>
  std::size_t offset(I... idx) const {
    static_assert(sizeof...(I) == N, "one index per dimension");
    const long long ids[N] = {static_cast<long long>(idx)...};
    std::size_t off = 0;
    for (int a = 0; a < N; ++a) off = off * static_cast<std::size_t>(shape[a]) + static_cast<std::size_t>(ids[a]);
    return off;
  }
  template <class... I>
  S& operator()(I... idx) {
    return data[offset(idx...)];
  }
  template <class... I>
  const S& operator()(I... idx) const {
    return data[offset(idx...)];
  }
};

using Tensor3d = Tensor<double, 3>;  // [B, T, d]
using Tensor4d = Tensor<double, 4>;  // [B, T, h, d_head]
using Tensor4f = Tensor<float, 4>;   // [B, T, h, d_head], float32 fast path

}  // namespace rv
