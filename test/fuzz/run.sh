#!/usr/bin/env bash
# Runs every libFuzzer target (docs/testing.md) for SECONDS each, or for N
# executions each, and fails when any of them finds a crash, a leak or a timeout.
#
#   test/fuzz/run.sh SECONDS [TARGET...]      CI: a fixed time per target
#   test/fuzz/run.sh --runs N [TARGET...]     the long run: N executions per target
#   default TARGETs: every target in build-fuzz/fuzz-bin
#
# Build first: deploy/bootstrap.sh --fuzz && cmake --preset fuzz && cmake --build --preset fuzz
# Dictionaries: dict/<target>.dict, dict/json.dict for the JSON decoders.
# FUZZ_JOBS (default 2) targets run at once. Seeds come from test/fuzz/corpus/<target>
# (read only); what a run learns goes to $FUZZ_WORK_DIR/fuzz-corpus/<target> (default
# build-fuzz), logs to fuzz-logs/<target>.log and crashing inputs to fuzz-artifacts/.
# A crash input belongs in corpus/<target>/ (and a unit test) once it is fixed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
usage="usage: test/fuzz/run.sh SECONDS | --runs N [TARGET...]"
if [[ ${1:-} == --runs ]]; then
  runs="${2:?$usage}"
  limit=(-runs="$runs")
  what="$runs executions"
  shift 2
else
  seconds="${1:?$usage}"
  limit=(-max_total_time="$seconds")
  what="$seconds s"
  shift
fi
jobs="${FUZZ_JOBS:-2}"
targets=("$@")
if ((${#targets[@]} == 0)); then
  for bin in "$build"/fuzz-bin/*; do targets+=("$(basename "$bin")"); done
fi
work="${FUZZ_WORK_DIR:-$build}"
mkdir -p "$work/fuzz-corpus" "$work/fuzz-logs" "$work/fuzz-artifacts"

run_one() {
  local t=$1 seeds=()
  [[ -d "$here/corpus/$t" ]] && seeds=("$here/corpus/$t")
  mkdir -p "$work/fuzz-corpus/$t"
  local dict=() name=$t
  case $t in decode_* | px_* | watch_stream) name=json ;; esac
  [[ -f "$here/dict/$name.dict" ]] && dict=("-dict=$here/dict/$name.dict")
  # Many steps per input: a longer input costs more than it finds (docs/testing.md).
  local max_len=()
  case $t in
    status_coalescer) max_len=(-max_len=1024) ;;
    watch_stream) max_len=(-max_len=4096) ;;
  esac
  if "$build/fuzz-bin/$t" "${limit[@]}" "${max_len[@]}" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 "${dict[@]}" -artifact_prefix="$work/fuzz-artifacts/$t-" \
      "$work/fuzz-corpus/$t" "${seeds[@]}" >"$work/fuzz-logs/$t.log" 2>&1; then
    local runs cov corpus
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz-logs/$t.log")
    cov=$(grep -o 'cov: [0-9]*' "$work/fuzz-logs/$t.log" | tail -1 | cut -d' ' -f2)
    corpus=$(find "$work/fuzz-corpus/$t" "${seeds[@]}" -type f | wc -l)
    printf '%-32s ok    runs %-10s cov %-6s corpus %s\n' "$t" "${runs:-?}" "${cov:-?}" "$corpus"
  else
    printf '%-32s FAIL  see %s\n' "$t" "$work/fuzz-logs/$t.log"
    grep -E '^==[0-9]+==ERROR|^SUMMARY|fuzz invariant|runtime error|Test unit written' \
      "$work/fuzz-logs/$t.log" | head -8 | sed 's/^/    /'
    return 1
  fi
}

for t in "${targets[@]}"; do
  [[ -x "$build/fuzz-bin/$t" ]] || { echo "run.sh: no target $build/fuzz-bin/$t" >&2; exit 2; }
  rm -f "$work/fuzz-logs/$t.failed"
  (run_one "$t" || touch "$work/fuzz-logs/$t.failed") &
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
done
wait
failed=()
for t in "${targets[@]}"; do
  [[ -e "$work/fuzz-logs/$t.failed" ]] && failed+=("$t")
done
if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]} (crashing inputs in $work/fuzz-artifacts)"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, $what each, no findings"
