// Shader programs from shaders/<name>.glsl: one file holds both stages behind VERTEX / FRAGMENT,
// and the version line for this build's GL (GL 3.3 core or WebGL2) is prepended here.
#pragma once
#include <initializer_list>
#include <string>

#include "platform/gl.hpp"

namespace rv {

// A program whose compile and link were sent to the GPU but not waited for: in a browser every GL query
// waits for the GPU process, so start-up starts the builds, does its CPU work meanwhile, then finishes them.
struct GlProgramBuild {
  const char* name = "";
  GLuint program = 0, vs = 0, fs = 0;
};

// Compiles and links shaders/<name>.glsl without waiting; `attributes` get locations 0, 1, ... Returns a build
// whose program is 0 if there is no such shader.
GlProgramBuild gl_program_start(const char* name, std::initializer_list<const char*> attributes = {});
// Waits for the build: the linked program, or 0 with error filled (the compile or link log).
GLuint gl_program_finish(GlProgramBuild& build, std::string& error);
// 4x4 orthographic projection mapping ImGui's display rectangle to clip space (column-major).
void gl_ortho(float left, float top, float width, float height, float out[16]);

}  // namespace rv
