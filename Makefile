# The front door: `make run` serves the web app, `make test` builds everything and runs every test.
PORT ?= 8080
JOBS ?= $(shell nproc)
export NODE_PATH := /usr/share/nodejs

.PHONY: setup native web run test test-asan bench clean

setup:
	@./setup.sh

native: setup
	@cmake --preset native >/dev/null
	@cmake --build --preset native -j $(JOBS)

web: setup
	@cmake --preset web >/dev/null
	@cmake --build --preset web -j $(JOBS)

run: web
	@python3 web/serve.py --root build/web --port $(PORT)

test: native web
	@ctest --preset native
	@cd tests/web && node --test --test-concurrency=1 .
	@/usr/bin/python3 tests/web/serve_test.py

test-asan: setup
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)
	@ctest --preset asan

bench: setup
	@cmake --preset native >/dev/null
	@cmake --build --preset native -j $(JOBS) --target rv_bench
	@build/native/tests/bench/rv_bench

clean:
	rm -rf build/native build/web build/asan
