// The OpenGL implementation of the app's Gpu seam (app/ui/gpu.hpp): R32F textures per slot and a
// colour-map shader drawn inside ImGui's draw list through ImDrawCallback.
#pragma once
#include <memory>

#include "app/ui/gpu.hpp"
#include "platform/gl/gl.hpp"

namespace rv {

// Heatmaps for the current context, drawn with the UI shader (GlRenderer's program, shaders/ui.glsl). Grids wider
// or taller than max_texture_side are not uploaded.
std::shared_ptr<Gpu> make_gl_heatmap(GLuint ui_program, int max_texture_side);

}  // namespace rv
