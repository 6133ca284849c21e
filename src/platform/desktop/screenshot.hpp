// Saves the current OpenGL framebuffer as a PNG (desktop only).
#pragma once
#include <optional>
#include <string>

#include "app/state/state.hpp"

namespace rv {

// Reads the back buffer (width x height), or the region of it (device pixels, top-left origin, clipped to the
// buffer), and writes it to path. Returns "" or an error message.
std::string save_screenshot(const std::string& path, int width, int height, std::optional<Rect> region = std::nullopt);

}  // namespace rv
