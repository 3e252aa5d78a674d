#!/usr/bin/env bash
# Runs every libFuzzer target (README "Hostile input") for SECONDS each and fails when
# any of them finds a crash, a leak or a timeout.
#
#   test/fuzz/run.sh SECONDS [TARGET...]   default: every target in build-fuzz/fuzz-bin
#
# Build first: deploy/bootstrap.sh --fuzz && cmake --preset fuzz && cmake --build --preset fuzz
# FUZZ_JOBS (default 2) targets run at once. Seeds come from test/fuzz/corpus/<target>
# (read only); what a run learns goes to build-fuzz/fuzz-corpus/<target>, logs to
# build-fuzz/fuzz-logs/<target>.log and crashing inputs to build-fuzz/fuzz-artifacts/.
# A crash input belongs in corpus/<target>/ (and a unit test) once it is fixed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${1:?usage: test/fuzz/run.sh SECONDS [TARGET...]}"
shift
jobs="${FUZZ_JOBS:-2}"
targets=("$@")
if ((${#targets[@]} == 0)); then
  for bin in "$build"/fuzz-bin/*; do targets+=("$(basename "$bin")"); done
fi
mkdir -p "$build/fuzz-corpus" "$build/fuzz-logs" "$build/fuzz-artifacts"

run_one() {
  local t=$1 seeds=()
  [[ -d "$here/corpus/$t" ]] && seeds=("$here/corpus/$t")
  mkdir -p "$build/fuzz-corpus/$t"
  local dict=()
  [[ -f "$here/dict/$t.dict" ]] && dict=("-dict=$here/dict/$t.dict")
  if "$build/fuzz-bin/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 "${dict[@]}" -artifact_prefix="$build/fuzz-artifacts/$t-" \
      "$build/fuzz-corpus/$t" "${seeds[@]}" >"$build/fuzz-logs/$t.log" 2>&1; then
    local runs cov corpus
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz-logs/$t.log")
    cov=$(grep -o 'cov: [0-9]*' "$build/fuzz-logs/$t.log" | tail -1 | cut -d' ' -f2)
    corpus=$(find "$build/fuzz-corpus/$t" "${seeds[@]}" -type f | wc -l)
    printf '%-32s ok    runs %-10s cov %-6s corpus %s\n' "$t" "${runs:-?}" "${cov:-?}" "$corpus"
  else
    printf '%-32s FAIL  see %s\n' "$t" "$build/fuzz-logs/$t.log"
    grep -E '^==[0-9]+==ERROR|^SUMMARY|fuzz invariant|runtime error|Test unit written' \
      "$build/fuzz-logs/$t.log" | head -8 | sed 's/^/    /'
    return 1
  fi
}

for t in "${targets[@]}"; do
  [[ -x "$build/fuzz-bin/$t" ]] || { echo "run.sh: no target $build/fuzz-bin/$t" >&2; exit 2; }
  rm -f "$build/fuzz-logs/$t.failed"
  (run_one "$t" || touch "$build/fuzz-logs/$t.failed") &
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
done
wait
failed=()
for t in "${targets[@]}"; do
  [[ -e "$build/fuzz-logs/$t.failed" ]] && failed+=("$t")
done
if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]} (crashing inputs in $build/fuzz-artifacts)"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds} s each, no findings"
