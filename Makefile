# Fleet Policy — build, serve and test. Every target installs what it needs first
# (.ci/setup.sh is idempotent: a second run takes seconds).
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PORT ?= 8080
ENV := . ./.setup/env
WASM_TARGET := wasm32-unknown-unknown
BIN := node_modules/.bin
WASM_OPT_FLAGS := -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
	--enable-mutable-globals --enable-reference-types --strip-debug --strip-producers

.PHONY: help setup dist serve test lint test-native test-wasm test-e2e package bench clean

help:
	@echo "make serve    build the playground into dist/ and serve it on http://127.0.0.1:$(PORT)"
	@echo "make test     run every test (native, wasm in Node and Chromium, browser end-to-end)"
	@echo "make dist     build the playground into dist/ without serving"
	@echo "make package  build the npm package fleet-policy-<version>.tgz"
	@echo "make bench    run the native criterion benchmarks"

setup:
	@.ci/setup.sh

# The playground: engine + Yew app → one wasm, shrunk with wasm-opt, plus static files.
dist: setup
	@$(ENV); echo "[dist] building the playground (release wasm)"; \
	$$WASM_CARGO build -q -p fleet-playground --release --target $(WASM_TARGET) $$WASM_BUILD_STD
	@rm -rf dist target/web-bindgen && mkdir -p dist target/web-bindgen
	@wasm-bindgen --target web --no-typescript --out-dir target/web-bindgen --out-name fleet_playground \
		target/$(WASM_TARGET)/release/fleet-playground.wasm
	@$(BIN)/wasm-opt $(WASM_OPT_FLAGS) target/web-bindgen/fleet_playground_bg.wasm -o dist/fleet_playground_bg.wasm
	@cp target/web-bindgen/fleet_playground.js dist/
	@cp -r static/. dist/
	@if [ -f web/editor/editor.js ]; then $(BIN)/esbuild web/editor/editor.js --bundle --minify --format=esm --outfile=dist/editor.js --log-level=warning; fi
	@node wasm-tests/e2e/sizes.mjs dist

serve: dist
	@echo "Fleet Policy playground: http://127.0.0.1:$(PORT)/  (Ctrl-C stops)"
	@node wasm-tests/e2e/serve.mjs dist $(PORT)

test: setup test-native test-wasm test-e2e
	@echo "make test: all suites passed"

test-native: lint
	@echo "== native: cargo test --workspace"
	@cargo test --workspace --all-targets
	@cargo test --workspace --doc

lint: setup
	@echo "== lint: cargo fmt --check, cargo clippy -D warnings"
	@cargo fmt --all -- --check
	@cargo clippy --workspace --all-targets --quiet -- -D warnings
	@$(ENV); $$WASM_CARGO clippy --quiet -p fleet-playground -p fleet-wasm-tests --tests --target $(WASM_TARGET) $$WASM_BUILD_STD -- -D warnings

test-wasm: setup
	@echo "== wasm: wasm-bindgen-test in Node and in headless Chromium"
	@$(ENV); export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner; \
	$$WASM_CARGO test -p fleet-wasm-tests --tests --target $(WASM_TARGET) $$WASM_BUILD_STD

test-e2e: dist
	@echo "== browser end-to-end: playwright-core + Chromium against dist/"
	@node --test --test-reporter=spec wasm-tests/e2e/

bench:
	cargo bench -p fleet-policy

clean:
	rm -rf dist target/web-bindgen
