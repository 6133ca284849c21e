// The failure counter behind imgui_config.hpp's IM_ASSERT (compiled into rv_imgui, native only).
#include <cstdio>
#include <string>

#include "imgui.h"

namespace rv {
namespace {
int assert_count = 0;  // process-wide by nature: ImGui's asserts have no context to report to
std::string first_assert;
}  // namespace

void imgui_assert_failed(const char* expr, const char* file, int line) {
  if (assert_count++ == 0) first_assert = std::string(expr) + " at " + file + ":" + std::to_string(line);
  std::fprintf(stderr, "ImGui assertion failed: %s (%s:%d)\n", expr, file, line);
}
int imgui_assert_count() {
  return assert_count;
}
const char* imgui_first_assert() {
  return first_assert.c_str();
}

}  // namespace rv
