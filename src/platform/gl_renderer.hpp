// Draws ImGui's draw data with OpenGL 3.3 / WebGL2. It replaces ImGui's OpenGL3 backend, whose
// per-frame state backup (glGetIntegerv) forces a synchronous GPU round trip in browsers.
#pragma once
#include <string>

#include "imgui.h"
#include "platform/gl.hpp"

namespace rv {

struct GlRenderer {
  GLuint program = 0, vao = 0, vbo = 0, ebo = 0, font_texture = 0;
  GLint u_proj = -1, u_texture = -1;
};

// Creates the program and buffers. Returns "" or an error message.
std::string gl_renderer_init(GlRenderer& r);
// (Re)uploads ImGui's font atlas, after theme::apply built it.
void gl_renderer_upload_fonts(GlRenderer& r);
// Renders draw data into the current framebuffer; honours user callbacks and ResetRenderState.
void gl_renderer_draw(GlRenderer& r, ImDrawData* data);
void gl_renderer_shutdown(GlRenderer& r);

}  // namespace rv
