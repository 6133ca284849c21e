// glReadPixels + stb_image_write: the desktop app's --screenshot.
#include "platform/desktop/screenshot.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "platform/gl/gl.hpp"
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace rv {

std::string save_screenshot(const std::string& path, int width, int height, std::optional<Rect> region) {
  int x = 0, y = 0;  // GL's origin: bottom-left
  if (region) {
    const int left = std::clamp(int(std::lround(region->x)), 0, width);
    const int top = std::clamp(int(std::lround(region->y)), 0, height);
    const int right = std::clamp(int(std::lround(region->x + region->w)), left, width);
    const int bottom = std::clamp(int(std::lround(region->y + region->h)), top, height);
    x = left;
    y = height - bottom;
    width = right - left;
    height = bottom - top;
  }
  if (width <= 0 || height <= 0) return "the window has no pixels to save";
  std::vector<unsigned char> pixels(size_t(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(x, y, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  stbi_flip_vertically_on_write(1);  // GL's origin is bottom-left, PNG's top-left
  if (!stbi_write_png(path.c_str(), width, height, 4, pixels.data(), width * 4)) return "could not write " + path;
  return "";
}

}  // namespace rv
