// Min/max decimation of curves to pixel columns (see decimate.hpp).
#include "app/ui/decimate.hpp"

#include <algorithm>

namespace rv {

void decimate(const double* y, std::size_t n, int columns, std::uint64_t version, Decimated& out) {
  columns = int(std::min<std::size_t>(std::size_t(std::max(columns, 1)), std::max<std::size_t>(n, 1)));
  if (out.version == version && out.columns == columns && out.n == n) return;
  out.lo.resize(size_t(columns));
  out.hi.resize(size_t(columns));
  for (int c = 0; c < columns; ++c) {
    const std::size_t i0 = std::size_t(c) * n / columns;
    const std::size_t i1 = std::max(i0 + 1, std::size_t(c + 1) * n / columns);
    double lo = n ? y[i0] : 0.0, hi = lo;
    for (std::size_t i = i0 + 1; i < i1 && i < n; ++i) {
      lo = std::min(lo, y[i]);
      hi = std::max(hi, y[i]);
    }
    out.lo[c] = float(lo);
    out.hi[c] = float(hi);
  }
  out.columns = columns;
  out.n = n;
  out.version = version;
  out.recomputes += 1;
}

}  // namespace rv
