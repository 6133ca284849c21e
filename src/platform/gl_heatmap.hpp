// The OpenGL implementation of the app's Gpu seam (app/gpu.hpp): R32F textures per slot and a
// colour-map shader drawn inside ImGui's draw list through ImDrawCallback.
#pragma once
#include <memory>

#include "app/gpu.hpp"

namespace rv {

// Compiles shaders/heatmap.glsl for the current context (GL 3.3 core or WebGL2, detected from
// GL_VERSION). If they do not compile it says so on stderr and draws nothing.
std::shared_ptr<Gpu> make_gl_heatmap();

}  // namespace rv
