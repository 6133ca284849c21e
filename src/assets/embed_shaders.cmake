# Writes each GLSL file of INPUTS (comma-separated) as a raw string into OUTPUT, looked up by file stem.
set(body "")
string(REPLACE "," ";" inputs "${INPUTS}")
foreach(file IN LISTS inputs)
  get_filename_component(name "${file}" NAME_WE)
  file(READ "${file}" text)
  string(APPEND body "  {\"${name}\", R\"glsl(${text})glsl\"},\n")
endforeach()
file(WRITE "${OUTPUT}" "// Generated from shaders/*.glsl: do not edit.\n#include \"assets/assets.hpp\"\n"
  "#include <cstring>\nnamespace rv::assets {\nnamespace {\nstruct Shader { const char* name; const char* source; };\n"
  "const Shader shaders[] = {\n${body}  {nullptr, nullptr}};\n}\n"
  "const char* shader_source(const char* name) {\n  for (const Shader* s = shaders; s->name; ++s)\n"
  "    if (std::strcmp(s->name, name) == 0) return s->source;\n  return nullptr;\n}\n}\n")
