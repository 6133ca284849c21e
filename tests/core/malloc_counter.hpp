// Counts malloc, calloc and realloc calls in the core test binary: Eigen allocates with malloc, which the operator
// new counter (tests/ui/alloc_counter) does not see. Only with glibc and without a sanitizer (which owns malloc).
#pragma once

namespace rv::test {

bool mallocs_counted();  // false where malloc is not replaced (ASan, not glibc): mallocs() then stays 0
long long mallocs();     // malloc, calloc and realloc calls since the program started

}  // namespace rv::test
