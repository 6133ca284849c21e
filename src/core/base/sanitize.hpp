// RV_LOOP_KERNEL: the lab's innermost loops (core/base/matmul.hpp's products, the decoder's axpy) keep
// AddressSanitizer's check of every load and store but not UBSan's pointer checks (alignment, null, pointer
// overflow), which keep such a loop from vectorizing: under `make test-asan` the matrix product was 37x slower than
// a plain build, against 6x with ASan's checks alone. An access those checks would catch out of bounds ASan reports.
#pragma once

#if defined(__clang__)
#define RV_LOOP_KERNEL __attribute__((no_sanitize("alignment", "null", "pointer-overflow")))
#else
#define RV_LOOP_KERNEL
#endif
