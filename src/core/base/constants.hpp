// Constants written once for core, app and CLI: the circle's, and the largest whole number numbers carry exactly.
#pragma once

namespace rv {

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kTwoPi = 2 * kPi;  // a wavelength is two_pi / theta_i

// 2^53: a double (so a JSON or JavaScript number) holds every whole number up to here, and not every one past it.
inline constexpr double kExactWhole = 9007199254740992.0;
inline constexpr long long kExactWholeMax = (1LL << 53);

}  // namespace rv
