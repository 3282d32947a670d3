#!/usr/bin/env bash
# speed_checks.sh [OUT] - the checks behind a quick default suite, on one GPU
# (OUT: the argument, else $OUT, else ./gpu-out):
#   1. build for this machine's GPUs (scripts/build.sh native)
#   2. the GPU tests of what the suite's speed rests on: test_matmul_check
#      (device fill, BF16 rounding and comparison against the host's; large
#      points with planted faults), test_matmul and test_matmul_tc (every
#      rung, the planted faults), test_transfers (pooled host buffers)
#   3. compute-sanitizer memcheck on test_matmul_check's device kernels
#      (the fill, the BF16 rounding, the comparison, the gather), and on a
#      short cubench run of the transfers family (pooled buffers reused)
#   4. pinned H2D / D2H copies from 16 MiB up and bidirectional copies at
#      256 MiB and 1 GiB alone, in two separate processes (`cubench run`),
#      with the GB/s each read
# About 4 minutes on an H200 (build ~30 s, tests ~1.5 min, memcheck ~1 min,
# copies 2 x ~20 s). Writes under OUT: summary.txt (also printed),
# build.log, test-NAME.log, memcheck-*.log, copiesA/, copiesB/ (run
# directories).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. scripts/record/lib.sh
open_out "${1:-}"

build_native

for t in test_matmul_check test_matmul test_matmul_tc test_transfers; do
    log "$t"
    (cd "$NATIVE/tests" && timeout 300 "./$t") >"$OUT/$t.log" 2>&1
    say "$t rc=$? (0 pass, 77 skipped): $(tail -1 "$OUT/$t.log")"
    grep -E "planted|check failed|FAIL" "$OUT/$t.log" | head -12 | tee -a "$SUMMARY"
done

SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [[ -n "$SAN" ]]; then
    log "compute-sanitizer memcheck: test_matmul_check"
    (cd "$NATIVE/tests" && group_timeout 300 "$SAN" --tool memcheck --leak-check no --error-exitcode 9 \
        ./test_matmul_check) >"$OUT/memcheck-test_matmul_check.log" 2>&1
    say "memcheck test_matmul_check rc=$? (0 clean, 9 errors): $(grep -E "ERROR SUMMARY" "$OUT/memcheck-test_matmul_check.log" | tail -1)"
    log "compute-sanitizer memcheck: transfers at 16 MiB and 256 MiB, pooled buffers"
    group_timeout 300 "$SAN" --tool memcheck --leak-check no --error-exitcode 9 "$BIN" run \
        'transfers/memcpy_async' 'transfers/bidir' --axis bytes=2^24,2^28 --quick --no-cupti \
        --out "$OUT/memcheck-transfers" >"$OUT/memcheck-transfers.log" 2>&1
    say "memcheck transfers rc=$? (0 clean, 9 errors): $(grep -E "ERROR SUMMARY" "$OUT/memcheck-transfers.log" | tail -1)"
else
    say "compute-sanitizer not found: memcheck skipped"
fi

for run in copiesA copiesB; do
    log "pinned copies alone ($run)"
    timeout 120 "$BIN" run transfers/memcpy_async transfers/bidir --axis memory=pinned \
        --axis bytes=2^24,2^26,2^28,2^30 --quiet --out "$OUT/$run" >"$OUT/$run.log" 2>&1
    say "$run rc=$?"
    python3 - "$OUT/$run/results.csv" <<'EOF' | tee -a "$SUMMARY"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["status"] in ("ok", "noisy"):
        print(f"  {r['benchmark']:24} {r['axes']:44} {float(r['gbps']):7.2f} GB/s {r['status']}")
EOF
done
log "done"
