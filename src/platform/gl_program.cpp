// Shader builds that the GPU runs while the CPU goes on (start, then finish), and the ImGui projection.
#include "platform/gl_program.hpp"

#include <cstring>

#include "assets/assets.hpp"

namespace rv {
namespace {

// Known at build time: asking the context (glGetString) would be one more wait for the GPU process.
#ifdef __EMSCRIPTEN__
constexpr const char* version_header = "#version 300 es\nprecision highp float;\nprecision highp int;\n";
#else
constexpr const char* version_header = "#version 330 core\n";
#endif

GLuint compile(GLenum type, const std::string& source) {
  GLuint shader = glCreateShader(type);
  const char* text = source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  return shader;
}

// The first failing stage's log, or the link log.
std::string build_log(const GlProgramBuild& b) {
  char log[1024] = {0};
  for (GLuint shader : {b.vs, b.fs}) {
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok) continue;
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    return log;
  }
  glGetProgramInfoLog(b.program, sizeof log, nullptr, log);
  return log;
}

}  // namespace

GlProgramBuild gl_program_start(const char* name, std::initializer_list<const char*> attributes) {
  GlProgramBuild b;
  b.name = name;
  const char* source = assets::shader_source(name);
  if (!source) return b;
  b.vs = compile(GL_VERTEX_SHADER, std::string(version_header) + "#define VERTEX\n" + source);
  b.fs = compile(GL_FRAGMENT_SHADER, std::string(version_header) + "#define FRAGMENT\n" + source);
  b.program = glCreateProgram();
  glAttachShader(b.program, b.vs);
  glAttachShader(b.program, b.fs);
  GLuint location = 0;
  for (const char* attribute : attributes) glBindAttribLocation(b.program, location++, attribute);
  glLinkProgram(b.program);
  glFlush();  // hand the work to the GPU now, not at the first query
  return b;
}

GLuint gl_program_finish(GlProgramBuild& b, std::string& error) {
  if (!b.program) {
    error = std::string("no shader named ") + b.name;
    return 0;
  }
  GLint ok = 0;
  glGetProgramiv(b.program, GL_LINK_STATUS, &ok);
  if (!ok) {
    error = std::string(b.name) + ": " + build_log(b);
    glDeleteProgram(b.program);
    b.program = 0;
  }
  glDeleteShader(b.vs);
  glDeleteShader(b.fs);
  b.vs = b.fs = 0;
  return b.program;
}

void gl_ortho(float left, float top, float width, float height, float m[16]) {
  const float r = left + width, b = top + height;
  const float out[16] = {
      2.0f / (r - left),     0, 0, 0, 0, 2.0f / (top - b), 0, 0, 0, 0, -1, 0, (r + left) / (left - r),
      (top + b) / (b - top), 0, 1};
  std::memcpy(m, out, sizeof out);
}

}  // namespace rv
