// `ropeviz-cli verify`: the lesson's section-3 checks printed as a readable report.
#pragma once

#include <cstdio>

namespace rv::cli {

int run_verify(std::FILE* out);  // 0 when every check holds

}  // namespace rv::cli
