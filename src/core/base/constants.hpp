// The circle's constants, written once for core, app and CLI.
#pragma once

namespace rv {

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kTwoPi = 2 * kPi;  // a wavelength is two_pi / theta_i

}  // namespace rv
