// The desktop's side of a shader build (platform/gl/gl_program.hpp): GL 3.3 core, nothing linked ahead.
#include "platform/gl/gl_program.hpp"

namespace rv {

const char* gl_version_header() {
  return "#version 330 core\n";
}

GLuint gl_prelinked_program(const char*, const char*) {
  return 0;
}

}  // namespace rv
