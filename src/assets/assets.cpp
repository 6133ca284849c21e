// Glyph ranges matching the font subset made in src/assets/CMakeLists.txt.
#include "assets/assets.hpp"

namespace rv::assets {
const ImWchar* font_glyph_ranges() {
  static const ImWchar ranges[] = {
      0x0020, 0x00FF,  // Basic Latin, Latin-1 (·, ², ×)
      0x0391, 0x03C9,  // Greek (θ, π)
      0x1D62, 0x1D62,  // subscript i (θᵢ)
      0x2010, 0x205E,  // punctuation (‖, …, ′)
      0x2070, 0x209F,  // super- and subscripts (ᵢ, ₀)
      0x2190, 0x22FF,  // arrows, mathematical operators (→, ≤, ≈, ∑)
      0x25A0, 0x25A1,  // squares (■, □)
      0x25CB, 0x25CF,  // circles (○, ●)
      0,
  };
  return ranges;
}
}  // namespace rv::assets
