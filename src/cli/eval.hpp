// `ropeviz-cli eval`: one JSON request per line in, one JSON response per line out (docs/cli.md; --help lists the
// ops from the table the requests are dispatched by).
#pragma once

#include <cstdio>
#include <string>

namespace rv::cli {

struct ModelCheckpoint;

// Answer one request line; `ok` is false when the response is an error object. Never throws.
std::string eval_line(const std::string& line, bool& ok);
// A forward or passkey request line answered on a checkpoint already open (the page's loaded one, in a Web Worker):
// its "file", "index", "config" and "preset" are not read, another op is refused; the same documents and errors.
std::string eval_on_checkpoint(const std::string& line, ModelCheckpoint& model, bool& ok);

// Read lines from `in` until EOF, write and flush one response per line; returns the exit status (0 iff no errors).
int run_eval(std::FILE* in, std::FILE* out);

// Each op of the protocol on two lines, its summary and one request, from the table dispatch reads.
std::string eval_ops_help();

}  // namespace rv::cli
