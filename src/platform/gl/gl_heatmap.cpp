// GL heatmaps: one R32F texture per slot, uploaded only when its data version changes, drawn as a
// quad by the UI shader's colour map from an ImDrawList callback, then ImGui's render state restored.
#include "platform/gl/gl_heatmap.hpp"

#include "platform/gl/gl_program.hpp"
#include "platform/gl/gl_renderer.hpp"

namespace rv {

GlHeatmap::GlHeatmap(GLuint ui_program, GLint max_texture_side) : program_(ui_program), max_side_(max_texture_side) {
  glGenVertexArrays(1, &vao_);  // no arrays: the quad's corners come from gl_VertexID, the rest is constant
  for (Slot& s : slots_) s.owner = this;
}

void GlHeatmap::upload(HeatSlot slot, const float* values, int rows, int cols, std::uint64_t version) {
  Slot& s = slots_[int(slot)];
  if (s.texture && s.version == version && s.rows == rows && s.cols == cols) return;
  if (rows <= 0 || cols <= 0 || rows > max_side_ || cols > max_side_) return;
  if (!s.texture) glGenTextures(1, &s.texture);
  glBindTexture(GL_TEXTURE_2D, s.texture);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);  // R32F is not filterable in WebGL2
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, cols, rows, 0, GL_RED, GL_FLOAT, values);
  s.rows = rows;
  s.cols = cols;
  s.version = version;
  ++uploads_;
}

void GlHeatmap::draw(ImDrawList* dl, HeatSlot slot, ImVec2 a, ImVec2 b, float vmin, float vmax) {
  Slot& s = slots_[int(slot)];
  if (!s.texture || !program_) return;
  s.rect[0] = a.x;
  s.rect[1] = a.y;
  s.rect[2] = b.x;
  s.rect[3] = b.y;
  s.range[0] = vmin;
  s.range[1] = vmax;
  const float drawn[7] = {float(int(slot)), a.x, a.y, b.x, b.y, vmin, vmax};
  drawn_ = hash_bytes(drawn_, drawn, sizeof drawn);
  dl->AddCallback(&GlHeatmap::callback, &s);
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

std::uint64_t GlHeatmap::take_drawn() {
  const std::uint64_t h = hash_bytes(drawn_, &uploads_, sizeof uploads_);
  drawn_ = 0;
  return h;
}

void GlHeatmap::callback(const ImDrawList*, const ImDrawCmd* cmd) {
  const Slot& s = *static_cast<const Slot*>(cmd->UserCallbackData);
  s.owner->render(s, cmd->ClipRect);
}

void GlHeatmap::render(const Slot& s, const ImVec4& clip) {
  const ImDrawData* dd = ImGui::GetDrawData();
  if (!dd) return;
  const float L = dd->DisplayPos.x, T = dd->DisplayPos.y;
  float proj[4];
  gl_projection(L, T, dd->DisplaySize.x, dd->DisplaySize.y, proj);
  // Clip like ImGui's backend does for its own commands.
  const ImVec2 sc = dd->FramebufferScale;
  const float fb_h = dd->DisplaySize.y * sc.y;
  const float x0 = (clip.x - L) * sc.x, y0 = (clip.y - T) * sc.y, x1 = (clip.z - L) * sc.x, y1 = (clip.w - T) * sc.y;
  if (x1 <= x0 || y1 <= y0) return;
  glEnable(GL_SCISSOR_TEST);
  glScissor(GLint(x0), GLint(fb_h - y1), GLsizei(x1 - x0), GLsizei(y1 - y0));
  glUseProgram(program_);
  glBindVertexArray(vao_);
  glVertexAttrib4fv(a_proj, proj);
  glVertexAttrib4fv(a_rect, s.rect);
  glVertexAttrib3f(a_heatmap, 1.0f, s.range[0], s.range[1]);
  glActiveTexture(GL_TEXTURE0);  // u_texture's unit
  glBindTexture(GL_TEXTURE_2D, s.texture);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

}  // namespace rv
