#!/bin/sh
# Runs each libFuzzer target for SECONDS on its corpus and prints executions and coverage per target.
# Usage: tests/fuzz/run.sh SECONDS [--seeds-only] [BUILD]   (make fuzz: FUZZ_S=600 in build/fuzz; make test-asan: 5 s
# on the seeds only, with the targets of build/asan)
# The committed seeds (tests/fuzz/corpus/<target>) are copied to BUILD/corpus/<target>, which keeps what a run
# finds; --seeds-only fuzzes a fresh copy of the seeds instead. A crash leaves BUILD/artifacts/<target>-crash-*.
set -eu
seconds=${1:?usage: run.sh SECONDS [--seeds-only] [BUILD]}
mode=${2:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/${3:-build/fuzz}
mkdir -p "$build/logs" "$build/artifacts"
status=0
for target in fuzz_eval fuzz_params fuzz_config fuzz_lab_options fuzz_safetensors fuzz_tokenizer; do
  corpus=$build/corpus/$target
  [ "$mode" = --seeds-only ] && corpus=$build/seeds/$target && rm -rf "$corpus"
  mkdir -p "$corpus"
  cp "$root"/tests/fuzz/corpus/$target/* "$corpus"/
  log=$build/logs/$target${mode:+-seeds}.log
  # -timeout: one request may take a few seconds under ASan; -rss_limit_mb: the CLI's tables may use ~1 GB
  if "$build/$target" -max_total_time="$seconds" -print_final_stats=1 -timeout=60 -rss_limit_mb=4096 \
      -dict="$root/tests/fuzz/$target.dict" -artifact_prefix="$build/artifacts/$target-" "$corpus" >"$log" 2>&1; then
    result=ok
  else
    result="FAILED (see $log)"
    status=1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | sed 's/cov: //')
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  printf '%-12s %s: %s executions in %ss (%s/s), cov %s, corpus %s files\n' "$target" "$result" "${execs:-?}" \
    "$seconds" "${rate:-?}" "${cov:-?}" "$(ls "$corpus" | wc -l)"
done
exit $status
