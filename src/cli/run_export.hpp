// `ropeviz-cli run-export DIR`: the forward pass and passkey bench as a standalone PyTorch script, DIR/ropeviz_run.py.
#pragma once

#include <cstdio>

namespace rv::cli {

// argv[2] is DIR (nothing may follow). Creates DIR if needed, writes DIR/ropeviz_run.py (core/infer/run_script.hpp,
// byte for byte) and prints {"script": PATH} as one JSON line on out. Exit 0; 2 for missing or extra arguments
// (message on err); 1 when DIR or the file cannot be written (docs/run-export.md).
int run_run_export(int argc, char** argv, std::FILE* out, std::FILE* err);

}  // namespace rv::cli
