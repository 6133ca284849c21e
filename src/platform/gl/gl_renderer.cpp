// ImGui renderer: one program, one VAO, streamed vertex/index buffers, scissored draw calls.
#include "platform/gl/gl_renderer.hpp"

#include <cstddef>
#include <vector>

#include "platform/gl/gl_program.hpp"

namespace rv {
namespace {

void setup_state(const GlRenderer& r, const ImDrawData* data, int fb_w, int fb_h) {
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_STENCIL_TEST);
  glEnable(GL_SCISSOR_TEST);
  glViewport(0, 0, fb_w, fb_h);
  glUseProgram(r.build.program);
  glActiveTexture(GL_TEXTURE0);  // u_texture's unit
  glBindVertexArray(r.vao);
  float proj[4];
  gl_projection(data->DisplayPos.x, data->DisplayPos.y, data->DisplaySize.x, data->DisplaySize.y, proj);
  glVertexAttrib4fv(a_proj, proj);
  glVertexAttrib3f(a_heatmap, 0.0f, 0.0f, 0.0f);  // ImGui's vertices, not a heatmap quad
  glBindBuffer(GL_ARRAY_BUFFER, r.vbo);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, r.ebo);
}

}  // namespace

std::string gl_renderer_init(GlRenderer& r) {
  r.build = gl_program_start("ui");
  if (!r.build.program) return std::string("cannot build the UI shader: no shader named ui");
  glGenVertexArrays(1, &r.vao);
  glGenBuffers(1, &r.vbo);
  glGenBuffers(1, &r.ebo);
  glBindVertexArray(r.vao);
  glBindBuffer(GL_ARRAY_BUFFER, r.vbo);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, r.ebo);
  glEnableVertexAttribArray(a_position);
  glEnableVertexAttribArray(a_uv);
  glEnableVertexAttribArray(a_colour);
  const GLsizei stride = sizeof(ImDrawVert);
  glVertexAttribPointer(a_position, 2, GL_FLOAT, GL_FALSE, stride, (void*)offsetof(ImDrawVert, pos));
  glVertexAttribPointer(a_uv, 2, GL_FLOAT, GL_FALSE, stride, (void*)offsetof(ImDrawVert, uv));
  glVertexAttribPointer(a_colour, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, (void*)offsetof(ImDrawVert, col));
  glBindVertexArray(0);
  ImGui::GetIO().BackendRendererName = "ropeviz_gl";
  return "";
}

bool gl_renderer_check(GlRenderer& r, std::string& error) {
  if (!r.build.checked && !gl_program_finish(r.build, r.error)) r.error = "cannot build the UI shader: " + r.error;
  error = r.error;
  return r.build.program != 0;
}

void gl_renderer_upload_fonts(GlRenderer& r) {
  ImFontAtlas& atlas = *ImGui::GetIO().Fonts;
  if (!atlas.TexPixelsAlpha8) return;  // theme::apply builds it; GetTexDataAs*() would link ImGui's default font
  const int w = atlas.TexWidth, h = atlas.TexHeight;
  std::vector<ImU32> pixels(std::size_t(w) * std::size_t(h));
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = IM_COL32(255, 255, 255, atlas.TexPixelsAlpha8[i]);
  if (!r.font_texture) glGenTextures(1, &r.font_texture);
  glBindTexture(GL_TEXTURE_2D, r.font_texture);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  atlas.SetTexID((ImTextureID)(intptr_t)r.font_texture);
  atlas.ClearTexData();  // the GPU has it now
}

void gl_renderer_draw(GlRenderer& r, ImDrawData* data) {
  const int fb_w = int(data->DisplaySize.x * data->FramebufferScale.x);
  const int fb_h = int(data->DisplaySize.y * data->FramebufferScale.y);
  if (fb_w <= 0 || fb_h <= 0) return;
  setup_state(r, data, fb_w, fb_h);
  const ImVec2 origin = data->DisplayPos, scale = data->FramebufferScale;
  for (int n = 0; n < data->CmdListsCount; ++n) {
    const ImDrawList* list = data->CmdLists[n];
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(list->VtxBuffer.Size * sizeof(ImDrawVert)), list->VtxBuffer.Data,
                 GL_STREAM_DRAW);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(list->IdxBuffer.Size * sizeof(ImDrawIdx)), list->IdxBuffer.Data,
                 GL_STREAM_DRAW);
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      if (cmd.UserCallback) {
        if (cmd.UserCallback == ImDrawCallback_ResetRenderState)
          setup_state(r, data, fb_w, fb_h);
        else
          cmd.UserCallback(list, &cmd);
        continue;
      }
      const ImVec2 lo((cmd.ClipRect.x - origin.x) * scale.x, (cmd.ClipRect.y - origin.y) * scale.y);
      const ImVec2 hi((cmd.ClipRect.z - origin.x) * scale.x, (cmd.ClipRect.w - origin.y) * scale.y);
      if (hi.x <= lo.x || hi.y <= lo.y) continue;
      glScissor(int(lo.x), int(fb_h - hi.y), int(hi.x - lo.x), int(hi.y - lo.y));  // GL's y points up
      glBindTexture(GL_TEXTURE_2D, GLuint((intptr_t)cmd.GetTexID()));
      glDrawElements(GL_TRIANGLES, GLsizei(cmd.ElemCount), sizeof(ImDrawIdx) == 2 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT,
                     (void*)(intptr_t)(cmd.IdxOffset * sizeof(ImDrawIdx)));
    }
  }
  glDisable(GL_SCISSOR_TEST);
}

void gl_renderer_shutdown(GlRenderer& r) {
  if (r.font_texture) glDeleteTextures(1, &r.font_texture);
  if (r.vbo) glDeleteBuffers(1, &r.vbo);
  if (r.ebo) glDeleteBuffers(1, &r.ebo);
  if (r.vao) glDeleteVertexArrays(1, &r.vao);
  gl_program_delete(r.build);
  r = GlRenderer{};
}

}  // namespace rv
