// Dark theme and embedded-font setup, scaled for high-DPI displays.
#include "app/ui/theme.hpp"

#include <imgui_internal.h>  // ImFontAtlasGetBuilderForStbTruetype

#include "assets/assets.hpp"

namespace rv::theme {

constexpr float kFontSize = 15.0f;

void apply(float scale) {
  ImGuiStyle style;
  ImGui::StyleColorsDark(&style);
  style.WindowRounding = 0.0f;
  style.ChildRounding = 4.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.WindowPadding = ImVec2(10, 10);
  style.FramePadding = ImVec2(6, 4);
  style.ItemSpacing = ImVec2(8, 6);
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.086f, 0.094f, 0.11f, 1.0f);
  c[ImGuiCol_ChildBg] = vec(kPanelBg);
  c[ImGuiCol_FrameBg] = ImVec4(0.16f, 0.17f, 0.20f, 1.0f);
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.22f, 0.24f, 0.28f, 1.0f);
  c[ImGuiCol_FrameBgActive] = ImVec4(0.26f, 0.28f, 0.33f, 1.0f);
  c[ImGuiCol_SliderGrab] = vec(kRope);
  c[ImGuiCol_SliderGrabActive] = vec(kRope);
  c[ImGuiCol_CheckMark] = vec(kRope);
  c[ImGuiCol_Button] = ImVec4(0.20f, 0.22f, 0.26f, 1.0f);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.27f, 0.30f, 0.35f, 1.0f);
  c[ImGuiCol_ButtonActive] = ImVec4(0.30f, 0.45f, 0.50f, 1.0f);
  c[ImGuiCol_Header] = ImVec4(0.20f, 0.22f, 0.26f, 1.0f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.27f, 0.30f, 0.35f, 1.0f);
  c[ImGuiCol_HeaderActive] = ImVec4(0.30f, 0.45f, 0.50f, 1.0f);
  c[ImGuiCol_Tab] = ImVec4(0.16f, 0.17f, 0.20f, 1.0f);
  c[ImGuiCol_TabHovered] = ImVec4(0.30f, 0.45f, 0.50f, 1.0f);
  c[ImGuiCol_TabActive] = ImVec4(0.22f, 0.34f, 0.38f, 1.0f);
  c[ImGuiCol_TableHeaderBg] = ImVec4(0.16f, 0.17f, 0.20f, 1.0f);
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;

  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  ImFontConfig config;
  config.FontDataOwnedByAtlas = false;  // the TTF lives in the binary
  config.OversampleH = 2;
  io.Fonts->AddFontFromMemoryTTF(const_cast<unsigned char*>(assets::font_ttf), assets::font_ttf_size, kFontSize * scale,
                                 &config, assets::font_glyph_ranges());
  // The builder directly: ImFontAtlas::Build() (and GetTexDataAs*) would link ImGui's default font, 12 KB of wasm.
  ImFontAtlasGetBuilderForStbTruetype()->FontBuilder_Build(io.Fonts);
}

}  // namespace rv::theme
