// The lesson's two-panel picture (its section 6), live: A, a token id selects E[token] and position p selects P[p],
// their sum enters the blocks (the P[p] arrow breaks past the table); B, p gives the angle that rotates Q and K pairs
// while V passes unchanged. Drawn in the guided lesson's first step.
#pragma once
#include <cstddef>

#include "app/state/state.hpp"

namespace rv {

// Height the picture needs at this width (screen pixels; scale: device pixels per logical pixel).
float lesson_picture_height(float width, float scale);
// Draws it at the cursor, `width` wide, and advances the cursor past it.
void draw_lesson_picture(const App& app, float width);
// Its text equivalent with the current numbers (the lesson's own, made live), into out.
void lesson_picture_text(const App& app, char* out, std::size_t size);

}  // namespace rv
