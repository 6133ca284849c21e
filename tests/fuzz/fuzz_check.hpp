// RV_FUZZ_CHECK: a broken invariant in a fuzz target prints where and traps, so libFuzzer saves the input.
#pragma once

#include <cstdio>

#define RV_FUZZ_CHECK(cond)                                                                  \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      __builtin_trap();                                                                      \
    }                                                                                        \
  } while (0)
