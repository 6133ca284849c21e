# Writes INPUT (the font subset) as a C++ byte array rv::assets::font_ttf into OUTPUT, with the
# matching ImGui glyph ranges from RANGES_FILE (the subsetter's "U+0020-007E,U+00B0-00B3,..." list, font_chars.py).
file(READ "${RANGES_FILE}" RANGES)
string(STRIP "${RANGES}" RANGES)
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n"
       bytes "${bytes}")
set(ranges "")
string(REPLACE "," ";" range_list "${RANGES}")
foreach(range IN LISTS range_list)
  string(REPLACE "U+" "" range "${range}")
  string(REPLACE "-" ", 0x" range "${range}")
  string(APPEND ranges "0x${range}, ")
endforeach()
file(WRITE "${OUTPUT}" "// Generated from ${INPUT}: do not edit.\n#include \"assets/assets.hpp\"\n"
  "namespace rv::assets {\nalignas(4) const unsigned char font_ttf[] = {\n${bytes}};\n"
  "const int font_ttf_size = ${size};\n"
  "const ImWchar* font_glyph_ranges() {\n  static const ImWchar ranges[] = {${ranges}0};\n  return ranges;\n}\n}\n")
