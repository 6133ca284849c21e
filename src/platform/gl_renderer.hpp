// Draws ImGui's draw data with OpenGL 3.3 / WebGL2. It replaces ImGui's OpenGL3 backend, whose
// per-frame state backup (glGetIntegerv) forces a synchronous GPU round trip in browsers.
#pragma once
#include <string>

#include "imgui.h"
#include "platform/gl.hpp"
#include "platform/gl_program.hpp"

namespace rv {

struct GlRenderer {
  GlProgramBuild build;  // the UI shader, until gl_renderer_ready links it
  std::string error;     // why the UI shader did not build
  GLuint program = 0, vao = 0, vbo = 0, ebo = 0, font_texture = 0;
  GLint u_proj = -1, u_texture = -1;
};

// Creates the buffers and starts building the UI shader. Returns "" or an error message.
std::string gl_renderer_init(GlRenderer& r);
// Waits for the UI shader (once, at the first draw, so the GPU builds it while the first frame is laid out).
// False with `error` if it did not build.
bool gl_renderer_ready(GlRenderer& r, std::string& error);
// (Re)uploads ImGui's font atlas, after theme::apply built it.
void gl_renderer_upload_fonts(GlRenderer& r);
// Renders draw data into the current framebuffer; honours user callbacks and ResetRenderState.
void gl_renderer_draw(GlRenderer& r, ImDrawData* data);
void gl_renderer_shutdown(GlRenderer& r);

}  // namespace rv
