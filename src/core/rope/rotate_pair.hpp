// The one pair rotation every RoPE loop calls: (a, b) -> (a cos - b sin, a sin + b cos), in the caller's scalar type.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define RV_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define RV_ALWAYS_INLINE inline
#endif

namespace rv {

template <class S>
struct RotatedPair {
  S a, b;
};

// No rounding beyond the scalar type's own.
struct NoRounding {
  template <class S>
  RV_ALWAYS_INLINE S operator()(S x) const {
    return x;
  }
};

// Pair (a, b) turned by the angle whose cosine and sine are c and s (the inverse turn: -s). The expression order is
// fixed, a*c - b*s and a*s + b*c: the lab's training matches PyTorch to the last bit and the browser matches native.
// `round` rounds every product and sum (precision.cpp's emulated float32, float16, bfloat16); by default nothing.
// Always inlined, so a hot loop built for size (the web build's -Oz) keeps it in the loop body, not behind a call.
template <class S, class Round = NoRounding>
RV_ALWAYS_INLINE RotatedPair<S> rotate_pair(S a, S b, S c, S s, Round round = {}) {
  return {round(round(a * c) - round(b * s)), round(round(a * s) + round(b * c))};
}

}  // namespace rv
