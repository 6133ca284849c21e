#!/usr/bin/env bash
# Makes here what tests/device/run.sh needs on the GPU machine, which has no C++ toolchain: a static ropeviz-cli
# (build/device/ropeviz-cli: no shared library of this machine's) and its answers to transformers_check.py's cases
# (build/device-check/cases.json). Then: the device tool runs `bash tests/device/run.sh`, carrying both folders.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXE_LINKER_FLAGS=-static >/dev/null
cmake --build build/device -j "${JOBS:-$(nproc)}" --target ropeviz-cli
file build/device/ropeviz-cli | grep -q "statically linked" || { echo "prepare: the CLI is not static" >&2; exit 1; }
/usr/bin/python3 tests/device/transformers_check.py prepare build/device/ropeviz-cli build/device-check
du -sh build/device/ropeviz-cli build/device-check
