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
	--enable-mutable-globals --enable-reference-types --enable-simd --strip-debug --strip-producers --strip-target-features
# The npm engine builds in its own target dir: the playground's build unifies other features of
# shared dependencies (js-sys), so in one dir each build made the other recompile the engine.
# One dir per build route (.setup/env's PKG_ROUTE: rustup / debian with std rebuilt for size,
# or plain), so switching routes never invalidates the other's cache.
NPM_TARGET := target/npm-wasm
# The playground's release wasm takes the same route as the package (std rebuilt for size), in
# its own dir too.
DIST_TARGET := target/dist-wasm
# The npm engine also runs the passes until the module stops shrinking (--converge): ~1% of
# the gzipped .wasm for a slower wasm-opt step, cached below. Functions with one caller are
# inlined only when small (binaryen inlines them all by default): 3.9 KB less gzipped, with
# no measurable change in speed (SIZE.md).
NPM_WASM_OPT_FLAGS := $(WASM_OPT_FLAGS) --converge --one-caller-inline-max-function-size=100
# wasm-opt (binaryen as JS) is the slowest step: its output is cached by a hash of flags + input.
WASM_OPT_CACHE := target/wasm-opt-cache
# $(call wasm_opt,IN,OUT,NAME,FLAGS)
define wasm_opt
	@mkdir -p $(WASM_OPT_CACHE); \
	key=$$( { echo '$(4)'; cat $(1); } | sha256sum | cut -c1-16); \
	out=$(WASM_OPT_CACHE)/$(3)-$$key.wasm; \
	if [ -f $$out ]; then echo "[wasm-opt] $(3): input unchanged, reusing the optimised module"; \
	else rm -f $(WASM_OPT_CACHE)/$(3)-*.wasm; $(BIN)/wasm-opt $(4) $(1) -o $$out.tmp && mv $$out.tmp $$out; fi; \
	cp $$out $(2)
endef

.PHONY: help setup dist serve test lint test-native test-wasm test-e2e package test-package bench bench-wasm bench-input oracle fuzz clean

help:
	@echo "make serve    build the playground into dist/ and serve it on http://127.0.0.1:$(PORT)"
	@echo "make test     run every test (native, wasm in Node and Chromium, browser end-to-end)"
	@echo "make dist     build the playground into dist/ without serving"
	@echo "make package  build the npm package fleet-policy-<version>.tgz"
	@echo "make bench    run the native criterion benchmarks"
	@echo "make bench-wasm  the same benchmarks compiled to wasm, timed under Node"
	@echo "make bench-input  reading realistic kubectl dumps (10k clusters, YAML and JSON): CLI and npm package"
	@echo "make oracle   compare the engine with the real Go libraries on ORACLE_CASES inputs (default 2,000,000)"
	@echo "make fuzz     a bounded libFuzzer campaign over every entry point (FUZZ_SECONDS per target)"

setup:
	@.ci/setup.sh

# The playground: engine + Yew app → one wasm, shrunk with wasm-opt, plus static files.
dist: setup package
	@$(ENV); echo "[dist] building the playground (release wasm; route $$PKG_ROUTE)"; \
	export CARGO_TARGET_DIR=$(DIST_TARGET)-$$PKG_ROUTE; \
	app_cargo build -q -p fleet-playground --profile wasm-release --target $(WASM_TARGET)
	@rm -rf dist target/web-bindgen && mkdir -p dist target/web-bindgen
	@$(ENV); wasm-bindgen --target web --no-typescript --out-dir target/web-bindgen --out-name fleet_playground \
		$(DIST_TARGET)-$$PKG_ROUTE/$(WASM_TARGET)/wasm-release/fleet-playground.wasm
	$(call wasm_opt,target/web-bindgen/fleet_playground_bg.wasm,dist/fleet_playground_bg.wasm,playground,$(WASM_OPT_FLAGS))
	@cp target/web-bindgen/fleet_playground.js dist/
	@cp -r static/. dist/
	@mkdir -p dist/embed/engine && cp $(PKG)/index.js $(PKG)/fleet_policy.js $(PKG)/fleet_policy_bg.wasm dist/embed/engine/
	@if [ -f web/editor/editor.js ]; then $(BIN)/esbuild web/editor/editor.js --bundle --minify --format=esm --outfile=dist/editor.js --log-level=warning; fi
	@node wasm-tests/e2e/sizes.mjs dist

serve: dist
	@echo "Fleet Policy playground: http://127.0.0.1:$(PORT)/  (Ctrl-C stops)"
	@node wasm-tests/e2e/serve.mjs dist $(PORT)

test: setup test-native test-wasm test-e2e test-package
	@echo "make test: all suites passed"

test-native: lint
	@echo "== native: cargo test --workspace"
	@cargo test --workspace --all-targets
	@cargo test --workspace --doc

lint: setup
	@echo "== lint: cargo fmt --check, cargo clippy -D warnings"
	@cargo fmt --all -- --check
	@cargo clippy --workspace --all-targets --quiet -- -D warnings
	@$(ENV); $$WASM_CARGO clippy --quiet -p fleet-playground -p fleet-wasm-tests --tests --benches --target $(WASM_TARGET) $$WASM_BUILD_STD -- -D warnings
	@# The fuzz targets are their own workspace (libFuzzer's build stays out of the main one).
	@cargo fmt --manifest-path engine/fuzz/Cargo.toml -- --check
	@cd engine/fuzz && cargo clippy --all-targets --quiet --target-dir ../../target/fuzz-lint -- -D warnings

test-wasm: setup
	@echo "== wasm: wasm-bindgen-test in Node and in headless Chromium"
	@$(ENV); export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner; \
	$$WASM_CARGO test -p fleet-wasm-tests --tests --target $(WASM_TARGET) $$WASM_BUILD_STD

test-e2e: dist
	@echo "== browser end-to-end: playwright-core + Chromium against dist/"
	@node --test --test-reporter=spec wasm-tests/e2e/

# The npm package (engine only, no Yew): engine/npm/ + wasm-bindgen --target web + wasm-opt +
# declarations generated from the engine's Rust types, packed into fleet-policy-<version>.tgz.
PKG := target/npm-package
TS_ROOTS := PlacementReport BudgetReport RolloutReport EvaluateReport ValidateReport \
	PlaceOptions:in BudgetOptions:in RolloutOptions:in
package: setup
	@$(ENV); echo "[package] building the engine (release wasm, no default features; route $$PKG_ROUTE)"; \
	export CARGO_TARGET_DIR=$(NPM_TARGET)-$$PKG_ROUTE; \
	pkg_cargo rustc -q -p fleet-policy --no-default-features --features wasm-api --lib --crate-type cdylib --profile wasm-release --target $(WASM_TARGET)
	@rm -rf target/npm-bindgen $(PKG) && mkdir -p target/npm-bindgen $(PKG)
	@$(ENV); wasm-bindgen --target web --no-typescript --out-dir target/npm-bindgen --out-name fleet_policy \
		$(NPM_TARGET)-$$PKG_ROUTE/$(WASM_TARGET)/wasm-release/fleet_policy.wasm
	$(call wasm_opt,target/npm-bindgen/fleet_policy_bg.wasm,$(PKG)/fleet_policy_bg.wasm,npm,$(NPM_WASM_OPT_FLAGS))
	@cargo run -q -p fleet-policy-typegen -- engine/src $(TS_ROOTS) > target/npm-bindgen/types.d.ts
	@node engine/npm/assemble.mjs target/npm-bindgen target/npm-bindgen/types.d.ts $(PKG)
	@rm -f fleet-policy-*.tgz && npm pack --silent --pack-destination . ./$(PKG) >/dev/null
	@node wasm-tests/npm/sizes.mjs

# The package's tests run from the packed tarball installed into a temporary project; the
# docs page's "Open in playground" round trip needs the built playground (dist/) too.
test-package: package dist
	@echo "== npm package: node --test, tsc --strict, an esbuild-bundled app and the docs page in Chromium"
	@cargo build -q -p fleet-policy --bin fleet-policy
	@node wasm-tests/npm/consumer.mjs
	@$(ENV); node --test --test-reporter=spec wasm-tests/npm/

# The same benches compiled to wasm and timed under Node (wasm-bindgen-test's criterion port).
bench-wasm: setup
	@$(ENV); export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner; \
	$$WASM_CARGO bench -p fleet-wasm-tests --bench engine --target $(WASM_TARGET) $$WASM_BUILD_STD

# Criterion options go in BENCH_ARGS, e.g. make bench BENCH_ARGS="--measurement-time 3".
bench:
	# Without the CLI binary: its link step in the bench profile is flaky next to the cdylib.
	# The benches are named so criterion's options do not reach the libtest harness of the lib.
	cargo bench -p fleet-policy --no-default-features --bench placement --bench disruption --bench rollout --bench input -- $(BENCH_ARGS)

# The input figures end to end on the same files: the release CLI (wall time and peak RSS)
# and the npm package under Node (first call in a fresh instance, warm calls). The dumps are
# the input benchmark's own (engine/benches/gen/dump.rs), written once into target/.
BENCH_INPUT := target/bench-input
bench-input: package
	@mkdir -p $(BENCH_INPUT)
	@[ -f $(BENCH_INPUT)/members-10000.json ] || INPUT_DUMP=$(CURDIR)/$(BENCH_INPUT) cargo bench -q -p fleet-policy --no-default-features --bench input
	@cargo build -q --release -p fleet-policy --bin fleet-policy
	@node wasm-tests/npm/consumer.mjs >/dev/null
	@for f in yaml json; do \
		/usr/bin/time -f "native place $$f 10,000 clusters: %e s, peak RSS %M KB" target/release/fleet-policy place --at snapshot \
			$(BENCH_INPUT)/members-10000.$$f $(BENCH_INPUT)/placement.yaml >/dev/null; \
		node wasm-tests/npm/bench-input.mjs $(BENCH_INPUT) $$f; \
	done
	@# The memory figure at 50,000 clusters: the CLI's peak RSS as a multiple of the input.
	@for f in yaml json; do \
		d=$(BENCH_INPUT)/members-50000.$$f; \
		/usr/bin/time -f "%e %M" -o $(BENCH_INPUT)/time.txt target/release/fleet-policy place --at snapshot \
			$$d $(BENCH_INPUT)/placement.yaml >/dev/null; \
		awk -v f=$$f -v size=$$(wc -c < $$d) '{ printf "native place %s 50,000 clusters (%.1f MB): %s s, peak RSS %.0f MB = %.2f× the input\n", \
			f, size / 1e6, $$1, $$2 * 1024 / 1e6, $$2 * 1024 / size }' $(BENCH_INPUT)/time.txt; \
	done

# The Go oracle at length (make test runs it with 100,000 inputs). ORACLE_SEED picks another
# input stream.
ORACLE_CASES ?= 2000000
oracle: setup
	@ORACLE_CASES=$(ORACLE_CASES) cargo test -q -p fleet-policy --test go_oracle

# A bounded fuzzing campaign (cargo-fuzz + libFuzzer) over reading, each engine and the option
# readers: prints each target's case count, time and slowest call, and any crash with its
# minimised input. `make test` runs the short property-based campaign (tests/hostile_props.rs).
FUZZ_SECONDS ?= 60
fuzz:
	@.ci/setup.sh fuzz
	@FUZZ_SECONDS=$(FUZZ_SECONDS) engine/fuzz/run.sh $(FUZZ_TARGETS)

clean:
	rm -rf dist target/web-bindgen
