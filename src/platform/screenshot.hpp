// Saves the current OpenGL framebuffer as a PNG (desktop only).
#pragma once
#include <string>

namespace rv {

// Reads the back buffer (width x height) and writes it to path. Returns "" or an error message.
std::string save_screenshot(const std::string& path, int width, int height);

}  // namespace rv
