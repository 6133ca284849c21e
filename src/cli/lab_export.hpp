// `ropeviz-cli lab [flags] [--save-weights DIR]`: the lab document, and each trained decoder as a checkpoint;
// `ropeviz-cli lab-export DIR [lab flags] [--batches N]`: a lab run as a standalone PyTorch script and its data file.
#pragma once

#include <cstdio>

namespace rv::cli {

// argv[2] is DIR, the rest lab flags (parse_lab_options) and --batches N (training batches in the data file,
// default kLabTorchBatches). Creates DIR if needed, writes DIR/ropeviz_lab.py and DIR/ropeviz_lab_data.json and prints
// one JSON line naming them. Exit 0; 2 for a bad flag (message on err); 1 when DIR or a file cannot be written.
int run_lab_export(int argc, char** argv, std::FILE* out, std::FILE* err);
// argv[2...] are lab flags, --jobs N (threads, 1..64, default the cores: not a document option) and --save-weights
// DIR. Prints the lab document (the same for every --jobs, apart from seconds and tokens_per_s); with DIR, writes
// DIR/<method>/model.safetensors and config.json for each method trained (docs/lab.md).
// Exit 0; 2 for a bad flag; 1 when a file cannot be written.
int run_lab(int argc, char** argv, std::FILE* out, std::FILE* err);

}  // namespace rv::cli
