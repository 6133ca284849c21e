// Shader builds that the GPU runs while the CPU goes on (start, then finish), and the ImGui projection.
#include "platform/gl/gl_program.hpp"

#include "assets/assets.hpp"

namespace rv {
namespace {

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

GlProgramBuild gl_program_start(const char* name) {
  GlProgramBuild b;
  b.name = name;
  const char* source = assets::shader_source(name);
  if (!source) return b;
  const std::string vertex = std::string(gl_version_header()) + "#define VERTEX\n" + source;
  const std::string fragment = std::string(gl_version_header()) + "#define FRAGMENT\n" + source;
  if ((b.program = gl_prelinked_program(vertex.c_str(), fragment.c_str()))) return b;
  b.vs = compile(GL_VERTEX_SHADER, vertex);
  b.fs = compile(GL_FRAGMENT_SHADER, fragment);
  b.program = glCreateProgram();
  glAttachShader(b.program, b.vs);
  glAttachShader(b.program, b.fs);
  glLinkProgram(b.program);
  glFlush();  // hand the work to the GPU now, not at the first query
  return b;
}

bool gl_program_finish(GlProgramBuild& b, std::string& error) {
  if (b.checked) return b.program != 0;
  b.checked = true;
  if (!b.program) {
    error = std::string("no shader named ") + b.name;
    return false;
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
  return b.program != 0;
}

void gl_program_delete(GlProgramBuild& b) {
  if (b.vs) glDeleteShader(b.vs);
  if (b.fs) glDeleteShader(b.fs);
  if (b.program) glDeleteProgram(b.program);
  b = GlProgramBuild{};
}

void gl_projection(float left, float top, float width, float height, float out[4]) {
  out[0] = 2.0f / width;  // x: left -> -1, left + width -> 1
  out[1] = -2.0f / height;  // y points down on screen and up in clip space: top -> 1, top + height -> -1
  out[2] = -1.0f - left * out[0];
  out[3] = 1.0f - top * out[1];
}

}  // namespace rv
