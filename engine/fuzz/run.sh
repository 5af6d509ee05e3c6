#!/usr/bin/env bash
# `make fuzz`: a bounded libFuzzer campaign. Each target (default: all) runs FUZZ_SECONDS
# (default 60) from the examples, the real-format corpus and the conformance cases' inputs,
# with a dictionary of YAML and Kubernetes tokens. Prints per target the cases run, the time
# and the slowest call; a crash (panic, or a call over FUZZ_TIMEOUT seconds) is minimised and
# printed, and the run fails.
set -euo pipefail
cd "$(dirname "$0")/.."   # engine/: cargo fuzz finds fuzz/ here
ROOT=$(cd .. && pwd)
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
TIMEOUT=${FUZZ_TIMEOUT:-1}
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(parse evaluate place budgets rollout options)
# cargo-fuzz needs nightly flags; the stable compiler accepts them with RUSTC_BOOTSTRAP.
export RUSTC_BOOTSTRAP=1
OUT=$ROOT/target/fuzz
FUZZ=(--target-dir "$OUT/build" --sanitizer none --debug-assertions)

# The conformance cases' inputs, exactly as their harness evaluates them.
rm -rf "$OUT/seeds/conformance"
FLEET_POLICY_SEEDS_DIR="$OUT/seeds/conformance" cargo test -q -p fleet-policy --test conformance >/dev/null
echo "[fuzz] seeds: $(ls "$OUT/seeds/conformance" | wc -l) conformance inputs, $(ls "$ROOT"/static/examples | wc -l) examples, $(ls "$ROOT"/engine/tests/corpus/*/ | wc -l) corpus files"
cargo fuzz build "${FUZZ[@]}" >/dev/null

total_runs=0; total_secs=0; slowest_all=0; failed=()
printf '%-10s %12s %8s %14s\n' target cases seconds 'slowest call'
for t in "${TARGETS[@]}"; do
  corpus=$OUT/corpus/$t; artifacts=$OUT/artifacts/$t; log=$OUT/logs/$t.log
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  if [ "$t" = options ]; then seeds=(fuzz/seeds/options)
  else seeds=("$ROOT"/static/examples "$ROOT"/engine/tests/corpus/kubectl "$ROOT"/engine/tests/corpus/az
    "$ROOT"/engine/tests/corpus/neighbours "$OUT/seeds/conformance"); fi
  start=$(date +%s)
  status=0
  cargo fuzz run "${FUZZ[@]}" "$t" "$corpus" "${seeds[@]}" -- -dict=fuzz/yaml.dict \
    -max_total_time="$SECONDS_PER_TARGET" -timeout="$TIMEOUT" -rss_limit_mb=2048 -max_len=16384 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1 || status=$?
  secs=$(( $(date +%s) - start ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [ -n "$runs" ] || runs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  slowest=$(sed -n 's/^#fleet-policy slowest call: \([0-9]*\) us.*/\1/p' "$log" | tail -1)
  runs=${runs:-0}; slowest=${slowest:-0}
  printf '%-10s %12s %8s %11s ms\n' "$t" "$runs" "$secs" "$(awk "BEGIN{printf \"%.1f\", $slowest/1000}")"
  total_runs=$((total_runs + runs)); total_secs=$((total_secs + secs))
  [ "$slowest" -gt "$slowest_all" ] && slowest_all=$slowest
  if [ "$status" != 0 ]; then
    failed+=("$t")
    crash=$(ls -t "$artifacts" | head -1)
    echo "[fuzz] $t failed; the end of its log ($log):"
    grep -v '^#fleet-policy' "$log" | tail -25
    if [ -n "$crash" ]; then
      cargo fuzz tmin "${FUZZ[@]}" "$t" "$artifacts/$crash" -- -runs=5000 >"$log.tmin" 2>&1 || true
      min=$(ls -t "$artifacts" | grep '^minimized' | head -1)
      min=${min:-$crash}
      echo "[fuzz] minimised input ($artifacts/$min, $(wc -c <"$artifacts/$min") bytes):"
      od -An -c "$artifacts/$min" | head -60
    fi
  fi
done
printf '%-10s %12s %8s %11s ms\n' total "$total_runs" "$total_secs" "$(awk "BEGIN{printf \"%.1f\", $slowest_all/1000}")"
if [ ${#failed[@]} -gt 0 ]; then echo "[fuzz] crashes in: ${failed[*]}"; exit 1; fi
echo "[fuzz] no crash"
