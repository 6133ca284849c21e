// Draws ImGui's draw data with OpenGL 3.3 / WebGL2. It replaces ImGui's OpenGL3 backend, whose
// per-frame state backup (glGetIntegerv) forces a synchronous GPU round trip in browsers.
#pragma once
#include <string>

#include "imgui.h"
#include "platform/gl/gl.hpp"
#include "platform/gl/gl_program.hpp"

namespace rv {

// Attribute locations of shaders/ui.glsl, as its layout(location = N) says (no location is asked for). ImGui's
// vertices are arrays; a_proj, a_rect and a_heatmap are constant attributes, set per draw.
enum UiAttribute : GLuint { a_position, a_uv, a_colour, a_proj, a_rect, a_heatmap };

struct GlRenderer {
  GlProgramBuild build;  // the UI shader (also the heatmaps'): drawn with before gl_renderer_check has checked it
  std::string error;     // why the UI shader did not build
  GLuint vao = 0, vbo = 0, ebo = 0, font_texture = 0;
};

// Creates the buffers and starts building the UI shader. Returns "" or an error message.
std::string gl_renderer_init(GlRenderer& r);
// Checks the UI shader's build (a wait for the GPU, once): false with `error` if it did not build. Called after
// the first frame was sent, so that frame does not wait (gl_program.hpp).
bool gl_renderer_check(GlRenderer& r, std::string& error);
// (Re)uploads ImGui's font atlas, after theme::apply built it.
void gl_renderer_upload_fonts(GlRenderer& r);
// Renders draw data into the current framebuffer; honours user callbacks and ResetRenderState.
void gl_renderer_draw(GlRenderer& r, ImDrawData* data);
void gl_renderer_shutdown(GlRenderer& r);

}  // namespace rv
