# Writes INPUT (a binary file) as a C++ byte array rv::assets::font_ttf into OUTPUT.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT}: do not edit.\n#include \"assets/assets.hpp\"\n"
  "namespace rv::assets {\nalignas(4) const unsigned char font_ttf[] = {\n${bytes}};\n"
  "const int font_ttf_size = ${size};\n}\n")
