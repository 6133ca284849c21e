// Shader programs from shaders/<name>.glsl: one file holds both stages behind VERTEX / FRAGMENT,
// and the version line for this build's GL (GL 3.3 core or WebGL2) is prepended here.
#pragma once
#include <string>

#include "platform/gl/gl.hpp"

namespace rv {

// A program whose compile and link were sent to the GPU but not waited for. In a browser every GL query waits for
// the GPU process, which is busy compositing the page while it loads (50-190 ms here with a software GPU): so
// the shaders take no uniform whose location would have to be asked (constant attributes and unset samplers
// instead), the first frame draws with the program unchecked, and the build is checked (finished) afterwards.
struct GlProgramBuild {
  const char* name = "";
  GLuint program = 0, vs = 0, fs = 0;
  bool checked = false;  // finished: the program linked (or is 0, and the error was told)
};

// Compiles and links shaders/<name>.glsl without waiting (its attributes' locations are in its text), or takes the
// program the web page linked from the same text. Returns a build whose program is 0 if there is no such shader.
GlProgramBuild gl_program_start(const char* name);
// Waits for the build, once: true if the program linked; else false with error filled (the compile or link log)
// and the program deleted (0).
bool gl_program_finish(GlProgramBuild& build, std::string& error);
// Deletes the program and any shaders still held.
void gl_program_delete(GlProgramBuild& build);
// Each platform's side of a build (platform/desktop/desktop_gl.cpp, platform/web/web_gl.cpp):
// the version line (and precisions) for its GL, known at build time: asking the context (glGetString) would be one
// more wait for the GPU process. web/shell.html links the UI shader with the same WebGL2 header.
const char* gl_version_header();
// A program the page linked from exactly this text before the app loaded (web/shell.html), taken once; 0 if none.
GLuint gl_prelinked_program(const char* vertex, const char* fragment);
// ImGui's display rectangle to clip space, as the shaders' a_proj takes it: scale x, scale y, offset x, offset y.
void gl_projection(float left, float top, float width, float height, float out[4]);

}  // namespace rv
