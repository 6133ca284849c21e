// Shader compilation with the context's version header, and the ImGui projection.
#include "platform/gl_program.hpp"

#include <cstring>

#include "assets/assets.hpp"

namespace rv {
namespace {

std::string version_header() {
  const char* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  const bool es = version && std::strstr(version, "OpenGL ES");  // WebGL2 reports "OpenGL ES 3.0"
  return es ? "#version 300 es\nprecision highp float;\nprecision highp int;\n" : "#version 330 core\n";
}

GLuint compile(GLenum type, const std::string& source, std::string& error) {
  GLuint shader = glCreateShader(type);
  const char* text = source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok) return shader;
  char log[1024] = {0};
  glGetShaderInfoLog(shader, sizeof log, nullptr, log);
  error = log;
  glDeleteShader(shader);
  return 0;
}

}  // namespace

GLuint gl_program(const char* name, std::string& error) {
  const char* source = assets::shader_source(name);
  if (!source) {
    error = std::string("no shader named ") + name;
    return 0;
  }
  const std::string header = version_header();
  GLuint vs = compile(GL_VERTEX_SHADER, header + "#define VERTEX\n" + source, error);
  GLuint fs = vs ? compile(GL_FRAGMENT_SHADER, header + "#define FRAGMENT\n" + source, error) : 0;
  if (!fs) {
    if (vs) glDeleteShader(vs);
    error = std::string(name) + ": " + error;
    return 0;
  }
  GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (ok) return program;
  char log[1024] = {0};
  glGetProgramInfoLog(program, sizeof log, nullptr, log);
  error = std::string(name) + ": " + log;
  glDeleteProgram(program);
  return 0;
}

void gl_ortho(float left, float top, float width, float height, float m[16]) {
  const float r = left + width, b = top + height;
  const float out[16] = {
      2.0f / (r - left),     0, 0, 0, 0, 2.0f / (top - b), 0, 0, 0, 0, -1, 0, (r + left) / (left - r),
      (top + b) / (b - top), 0, 1};
  std::memcpy(m, out, sizeof out);
}

}  // namespace rv
