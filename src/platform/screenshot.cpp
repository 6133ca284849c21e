// glReadPixels + stb_image_write: the desktop app's --screenshot.
#include "platform/screenshot.hpp"

#include <vector>

#include "platform/gl.hpp"
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace rv {

std::string save_screenshot(const std::string& path, int width, int height) {
  if (width <= 0 || height <= 0) return "the window has no pixels to save";
  std::vector<unsigned char> pixels(size_t(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  stbi_flip_vertically_on_write(1);  // GL's origin is bottom-left, PNG's top-left
  if (!stbi_write_png(path.c_str(), width, height, 4, pixels.data(), width * 4)) return "could not write " + path;
  return "";
}

}  // namespace rv
