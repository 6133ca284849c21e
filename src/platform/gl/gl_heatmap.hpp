// The OpenGL implementation of the app's Gpu seam (app/ui/gpu.hpp): R32F textures per slot and a
// colour-map shader drawn inside ImGui's draw list through ImDrawCallback.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "app/ui/gpu.hpp"
#include "platform/gl/gl.hpp"

namespace rv {

// n bytes from p mixed into the 64-bit hash h, eight at a time (render_frame's key of a frame's pixels).
inline std::uint64_t hash_bytes(std::uint64_t h, const void* p, std::size_t n) {
  const auto* bytes = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes + i, n - i < 8 ? n - i : 8);
    h = (h ^ word) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 32;
  }
  return h;
}

// Heatmaps for the current context, drawn with the UI shader (GlRenderer's program, shaders/ui.glsl). Grids wider
// or taller than max_texture_side are not uploaded.
class GlHeatmap final : public Gpu {
 public:
  GlHeatmap(GLuint ui_program, GLint max_texture_side);
  // The GL objects belong to the context, which the window destroys; nothing to release here.
  ~GlHeatmap() override = default;
  void upload(HeatSlot slot, const float* values, int rows, int cols, std::uint64_t version) override;
  void draw(ImDrawList* dl, HeatSlot slot, ImVec2 a, ImVec2 b, float vmin, float vmax) override;
  // What the quads drawn since the last call show (each one's slot, rectangle and range) and whether a texture was
  // uploaded since, as a hash, then forgets them: with ImGui's draw lists, what decides a frame's pixels
  // (render_frame).
  std::uint64_t take_drawn();

 private:
  struct Slot {
    GlHeatmap* owner = nullptr;
    GLuint texture = 0;
    int rows = 0, cols = 0;
    std::uint64_t version = 0;
    float rect[4] = {0, 0, 0, 0};
    float range[2] = {0, 1};
  };

  static void callback(const ImDrawList*, const ImDrawCmd* cmd);
  void render(const Slot& s, const ImVec4& clip);

  Slot slots_[int(HeatSlot::Count)];
  std::uint64_t drawn_ = 0;    // the quads drawn since take_drawn(), hashed
  std::uint64_t uploads_ = 0;  // textures uploaded so far
  GLuint program_, vao_ = 0;
  GLint max_side_;  // GL_MAX_TEXTURE_SIZE: larger grids are not uploaded
};

}  // namespace rv
