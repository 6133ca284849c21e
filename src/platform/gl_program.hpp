// Shader programs from shaders/<name>.glsl: one file holds both stages behind VERTEX / FRAGMENT,
// and the version line for this context (GL 3.3 core or WebGL2) is prepended here.
#pragma once
#include <string>

#include "platform/gl.hpp"

namespace rv {

// Compiles and links shaders/<name>.glsl. Returns 0 and fills error on failure.
GLuint gl_program(const char* name, std::string& error);
// 4x4 orthographic projection mapping ImGui's display rectangle to clip space (column-major).
void gl_ortho(float left, float top, float width, float height, float out[16]);

}  // namespace rv
