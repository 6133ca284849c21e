// The circle's constants, written once for core, app and CLI.
#pragma once

namespace rv {

inline constexpr double pi = 3.14159265358979323846;
inline constexpr double two_pi = 2 * pi;  // a wavelength is two_pi / theta_i

}  // namespace rv
