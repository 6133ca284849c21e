// ropeviz_run.py, the forward and passkey ops as a standalone PyTorch script (docs/run-export.md), compiled in.
#pragma once

#include <string_view>

namespace rv {

// The text of src/core/infer/ropeviz_run.py, byte for byte (core/CMakeLists.txt embeds it).
std::string_view run_script();

}  // namespace rv
