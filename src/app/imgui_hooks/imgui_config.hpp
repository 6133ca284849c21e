// ImGui user config for native builds: IM_ASSERT stays live in Release and is counted, so the
// headless UI tests can require "no ImGui assertion" (the web build keeps ImGui's default).
#pragma once

namespace rv {
// Called by IM_ASSERT on failure: counts it, remembers the first, prints it to stderr.
void imgui_assert_failed(const char* expr, const char* file, int line);
int imgui_assert_count();
const char* imgui_first_assert();  // "" if none
}  // namespace rv

#define IM_ASSERT(_EXPR) ((_EXPR) ? (void)0 : ::rv::imgui_assert_failed(#_EXPR, __FILE__, __LINE__))
