// The OpenGL implementation of the app's Gpu seam (app/gpu.hpp): R32F textures per slot and a
// colour-map shader drawn inside ImGui's draw list through ImDrawCallback.
#pragma once
#include <memory>

#include "app/gpu.hpp"

namespace rv {

// Starts building shaders/heatmap.glsl for the current context; the first heatmap drawn waits for it. If it does
// not build it says so on stderr and draws nothing. Grids wider or taller than max_texture_side are not uploaded.
std::shared_ptr<Gpu> make_gl_heatmap(int max_texture_side);
// Waits for that shader's build, once (a GPU round trip): called before a frame's draws are queued, so the wait
// is not also for them. `gpu` must come from make_gl_heatmap.
void gl_heatmap_finish_build(Gpu& gpu);

}  // namespace rv
