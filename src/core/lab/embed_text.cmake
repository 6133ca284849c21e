# Writes INPUT, a text file, into OUTPUT as a C++ byte array behind `std::string_view NAME()` (declared in the header
# INCLUDE), byte for byte: unlike src/assets/embed_shaders.cmake it strips nothing, and unlike a raw string literal the
# text can hold any sequence of characters. The array ends with a 0 that the view leaves out (so it is never empty).
#   cmake -DINPUT=ropeviz_lab.py -DOUTPUT=ropeviz_lab_py.cpp -DNAME=rv::detail::lab_torch_script_file
#         -DINCLUDE=core/lab/lab_torch.hpp [-DLIMIT=bytes] -P embed_text.cmake
foreach(var INPUT OUTPUT NAME INCLUDE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_text.cmake: -D${var}=... is missing")
  endif()
endforeach()
if(DEFINED LIMIT)  # only the first LIMIT bytes
  file(READ "${INPUT}" hex HEX LIMIT ${LIMIT})
else()
  file(READ "${INPUT}" hex HEX)
endif()
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n"
       bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by embed_text.cmake: do not edit.\n#include \"${INCLUDE}\"\n\n"
  "std::string_view ${NAME}() {\n  static const unsigned char text[] = {\n${bytes}0};\n"
  "  return {reinterpret_cast<const char*>(text), ${size}};\n}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")  # a build stopped half-way leaves no truncated OUTPUT behind
