#!/usr/bin/env bash
# suite_speed.sh [OUT] - how long the default suite takes on this GPU, where
# the time goes and which rows come out noisy (OUT: the argument, else $OUT,
# else ./gpu-out):
#   1. build for this machine's GPUs (scripts/build.sh native)
#   2. the default suite (`cubench run`, nothing else on the command line)
#      into OUT/suiteA, then again in a new process into OUT/suiteB; each is
#      stopped like a Ctrl-C after SUITE_LIMIT seconds (default 200): the
#      finished rows stay and meta.json says it was interrupted
#   3. suite_speed_summary.py on both: per run the wall time and noisy
#      share, per family and phase the seconds, every noisy row with its
#      kind, reason and note, and the two runs' medians side by side by kind
# About 4-7 minutes on an H200 (build ~30 s, each suite up to SUITE_LIMIT).
# Writes under OUT: summary.txt (also printed), build.log, suiteA/, suiteB/
# (run directories), suiteA.log, suiteB.log (cubench's own account,
# "where the time went" at the end), nvidia-smi.txt.
# Needs: the CUDA toolkit, libjansson-dev (or an unpacked one under
# .gpu-libs/jansson, as scripts/record/gpu_aa.sh says), python3.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. scripts/record/lib.sh
open_out "${1:-}"
LIMIT=${SUITE_LIMIT:-200}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu,pcie.link.gen.current,pcie.link.width.current \
    --format=csv >"$OUT/nvidia-smi.txt" 2>&1
say "GPU: $(tail -1 "$OUT/nvidia-smi.txt"); host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

build_native

for run in suiteA suiteB; do
    log "cubench run --out $run (stopped after $LIMIT s)"
    t0=$(date +%s.%N)
    timeout -s INT "$LIMIT" "$BIN" run --quiet --out "$OUT/$run" >"$OUT/$run.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    say "$run: exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s wall" \
        "(130: stopped at the limit)"
    sed -n '/where the time went/,$p' "$OUT/$run.log" | tee -a "$SUMMARY"
done

log "summary"
python3 scripts/record/suite_speed_summary.py "$OUT/suiteA" "$OUT/suiteB" 2>&1 | tee -a "$SUMMARY"
log "done"
