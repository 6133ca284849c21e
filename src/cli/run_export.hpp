// `ropeviz-cli run-export DIR [REQUEST]`: the forward pass and passkey bench as a standalone PyTorch script,
// DIR/ropeviz_run.py, and optionally a request for it, DIR/request.json.
#pragma once

#include <cstdio>

namespace rv::cli {

// argv[2] is DIR, argv[3] the optional REQUEST (a JSON file's path, "-" for stdin, or an inline object "{...}").
// Creates DIR if needed, writes DIR/ropeviz_run.py (core/infer/run_script.hpp, byte for byte) and prints
// {"script": PATH} as one JSON line on out. With REQUEST (a forward or passkey request, checked as eval checks it
// where no checkpoint is needed) it also writes DIR/request.json (one line, without "file", "index", "config" and
// "preset") and prints {"script", "request", "command"}: the script's command line on that request. Exit 0; 2 for
// missing or extra arguments or a REQUEST that cannot be read or is refused (message on err, nothing written); 1 when
// DIR or a file cannot be written (docs/run-export.md).
int run_run_export(int argc, char** argv, std::FILE* out, std::FILE* err);

}  // namespace rv::cli
