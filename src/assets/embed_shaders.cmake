# Writes each GLSL file of INPUTS (comma-separated) as a raw string into OUTPUT, looked up by file stem, and the
# same text as SHIPPED_DIR/<stem>.glsl, which the web pages carry too (web/shell.html links the UI shader while the
# app loads, and the app takes that program only if its text is the same). The text is the file without comments,
# indentation or blank lines: what the GPU needs, and nothing a page's script filter would change.
set(body "")
string(REPLACE "," ";" inputs "${INPUTS}")
foreach(file IN LISTS inputs)
  get_filename_component(name "${file}" NAME_WE)
  file(READ "${file}" text)
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  string(REGEX REPLACE "[ \t]+\n" "\n" text "${text}")
  string(REGEX REPLACE "\n[ \t]+" "\n" text "${text}")
  string(REGEX REPLACE "\n\n+" "\n" text "${text}")
  string(REGEX REPLACE "^\n+" "" text "${text}")
  string(APPEND body "  {\"${name}\", R\"glsl(${text})glsl\"},\n")
  if(SHIPPED_DIR)
    file(WRITE "${SHIPPED_DIR}/${name}.glsl" "${text}")
  endif()
endforeach()
file(WRITE "${OUTPUT}" "// Generated from shaders/*.glsl: do not edit.\n#include \"assets/assets.hpp\"\n"
  "#include <cstring>\nnamespace rv::assets {\nnamespace {\nstruct Shader { const char* name; const char* source; };\n"
  "const Shader shaders[] = {\n${body}  {nullptr, nullptr}};\n}\n"
  "const char* shader_source(const char* name) {\n  for (const Shader* s = shaders; s->name; ++s)\n"
  "    if (std::strcmp(s->name, name) == 0) return s->source;\n  return nullptr;\n}\n}\n")
