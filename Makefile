# The front door: `make run` serves the web app, `make test` builds everything and runs every test.
PORT ?= 8080
JOBS ?= $(shell nproc)
FUZZ_S ?= 600
export NODE_PATH := /usr/share/nodejs

.PHONY: setup native-cli native web run test test-units test-browser test-asan fuzz fuzz-build bench bench-web clean

setup:
	@./setup.sh

# The CLI first: the browser suite compares the page with it, and starts as soon as the web build and the CLI are done.
native-cli: setup
	@cmake --preset native >/dev/null
	@cmake --build --preset native -j $(JOBS) --target ropeviz-cli

native: native-cli
	@cmake --build --preset native -j $(JOBS)

web: setup
	@cmake --preset web >/dev/null
	@cmake --build --preset web -j $(JOBS)

run: web
	@python3 web/serve.py --root build/web --port $(PORT)

# ctest and the browser suite side by side (each one's output whole once it ends), each as soon as its own build is
# done (from a fresh clone 999 s against 1,018 s with both builds first: within this machine's noise). The browser
# suite is the longer and keeps both cores busy itself (the software GPU: 55 CPU s in 28 s of the keyboard tests), so
# it runs one file at a time (BROWSER_JOBS: three at a time took as long as one, 414 s against 391 s alone).
# A test that hangs fails after 2 minutes (the longest takes 21 s on a loaded machine); no test times itself.
BROWSER_JOBS ?= 1
test:
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-units test-browser

test-units: native
	@ctest --preset native -j $(JOBS)

test-browser: web native-cli
	@cd tests/web && node --test --test-concurrency=$(BROWSER_JOBS) --test-timeout=120000 .
	@/usr/bin/python3 tests/web/serve_test.py

test-asan: setup
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)
	@ctest --preset asan -j $(JOBS)
	@tests/fuzz/run.sh 5 --seeds-only build/asan

# libFuzzer targets (tests/fuzz), each for FUZZ_S seconds on build/fuzz/corpus/<target>.
fuzz-build: setup
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz -j $(JOBS)

fuzz: fuzz-build
	@tests/fuzz/run.sh $(FUZZ_S)

# rv_bench (its tokenizer encode reads the 1 MB texts tokenize_texts.mjs writes), then the same encodes by Hugging
# Face's JS tokenizer in node.
bench: setup
	@cmake --preset native >/dev/null
	@cmake --build --preset native -j $(JOBS) --target rv_bench
	@node tests/bench/tokenize_texts.mjs build/bench
	@RV_BENCH_TEXTS=build/bench build/native/tests/bench/rv_bench
	@node tests/bench/tokenize_node.mjs

# The lab in headless Chromium: the default experiment's wall time with 1 and 2 workers (4 with the cores; medians of
# RUNS=3), ropeviz-cli lab --jobs 1 and 2, and page vs native tokens/s;
# then start-up, idle CPU and input latency (medians of STARTUP_RUNS=5 fresh browsers) into build/bench-web/startup.txt;
# then the tokenizer's encode natively, in node (@huggingface/tokenizers) and in the page, side by side, with the
# ratios to node, into build/bench-web/tokenize.txt.
bench-web: native web
	@cmake --build --preset native -j $(JOBS) --target rv_bench
	@node tests/bench/lab_browser.mjs
	@node tests/bench/startup_browser.mjs
	@node tests/bench/tokenize_browser.mjs

clean:
	rm -rf build/native build/web build/asan build/fuzz
