// Build-time assets: the embedded UI font and the GLSL shader sources from shaders/.
#pragma once
#include "imgui.h"

namespace rv::assets {
extern const unsigned char font_ttf[];
extern const int font_ttf_size;
// Glyph ranges of the embedded subset, for ImFontAtlas: ASCII and every other character the app's sources use
// (font_chars.py lists them at build time).
const ImWchar* font_glyph_ranges();
// Source of shaders/<name>.glsl without a #version line, or nullptr if there is none.
const char* shader_source(const char* name);
}  // namespace rv::assets
