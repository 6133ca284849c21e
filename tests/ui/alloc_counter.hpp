// Counts global operator new calls in the UI test binary, so a test can require that a steady
// frame allocates (almost) nothing.
#pragma once

namespace rv::test {

long long allocations();               // operator new calls since the program started, on every thread
long long allocations_on_this_thread();  // those of the calling thread (a lab's training threads apart)

}  // namespace rv::test
