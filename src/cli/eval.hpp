// `ropeviz-cli eval`: one JSON request per line in, one JSON response per line out (documented in ropeviz-cli --help and docs/cli.md).
#pragma once

#include <cstdio>
#include <string>

namespace rv::cli {

// Answer one request line; `ok` is false when the response is an error object. Never throws.
std::string eval_line(const std::string& line, bool& ok);

// Read lines from `in` until EOF, write and flush one response per line; returns the exit status (0 iff no errors).
int run_eval(std::FILE* in, std::FILE* out);

}  // namespace rv::cli
