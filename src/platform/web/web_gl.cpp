// The browser's side of a shader build (platform/gl/gl_program.hpp): WebGL2, and the program web/shell.html linked
// while the app loaded (page.js's rvPrelinked hands it over when its text is the same).
#include <emscripten/emscripten.h>

#include "platform/gl/gl_program.hpp"

namespace rv {
namespace {
EM_JS(GLuint, prelinked_program, (const char* vertex, const char* fragment),
      { return Module["rvPrelinked"](UTF8ToString(vertex), UTF8ToString(fragment)); });
}  // namespace

const char* gl_version_header() {
  return "#version 300 es\nprecision highp float;\nprecision highp int;\n";
}

GLuint gl_prelinked_program(const char* vertex, const char* fragment) {
  return prelinked_program(vertex, fragment);
}

}  // namespace rv
