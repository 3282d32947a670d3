#!/usr/bin/env bash
# gpu_ahead.sh - the GPU checks of the runner's one-ahead sampling (event-
# timed samples queued before the previous one is read), one device call of
# about nine minutes on an H200 with PyTorch, CuPy, JAX, Numba and Triton:
#
#   1  build cubench, libcubench.so and the runner's GPU tests (release)
#   2  ctest: test_runner_ahead (a host lag of 80 us before each launch must
#      not show; the waited control must show it), and the GPU tests of the
#      runner's neighbours (vecadd, CUPTI, telemetry)
#   3  scripts/record/py_event_loop.py: torch.add at 2^28, cubench against a plain
#      event loop that queues ahead, cold and hot (check: within 1 %)
#   4  every add, C and Python, at n = 2^10, 2^16, 2^20 in hot mode: each
#      framework's cost per call from Python
#   5  scripts/record/gpu_aa.sh with the build of step 1: fresh A/A pairs through
#      `cubench compare`'s defaults (0 slower, 0 faster expected)
# Everything lands in $OUT/ahead and is packed into $OUT/ahead.tar.gz on
# any exit, but gpu_aa.sh's runs, which stay in $OUT/aa (its tarball can be
# large: keep each archive under 16 MiB). DEADLINE (default
# 540 s) bounds the whole call.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/record/lib.sh
python_session ahead ahead.tar.gz
DEADLINE=${DEADLINE:-540}
left() { echo $((DEADLINE - SECONDS - 15)); }

log "build"
TESTS=(test_runner_ahead test_vecadd test_cupti test_telemetry_runner)
{ cmake --preset release -DPython3_EXECUTABLE="$(command -v "$PY")" &&
  cmake --build --preset release -j "$(nproc)" --target cubench_shared cubench "${TESTS[@]}"; } \
    > "$W/build.log" 2>&1 || { tail -20 "$W/build.log"; exit 1; }

log "GPU tests of the runner"
(cd build && ctest --output-on-failure -R "^($(IFS='|'; echo "${TESTS[*]}"))\$") > "$W/ctest.log" 2>&1
echo "   ctest rc=$?" | tee -a "$W/session.log"
grep -E "one ahead|waited|CUPTI:|tests passed|Failed|\*\*\*" "$W/ctest.log" | tee -a "$W/session.log"

log "event loop vs cubench: torch.add at 2^28, cold and hot"
timeout -k 10 120 "$PY" scripts/record/py_event_loop.py --out "$W/event-loop" 2>&1 | tee "$W/event-loop.log"

log "each framework's cost per call at small n (hot)"
timeout -k 10 90 "$PY" -m cubench run vecadd/float4_per_thread torch/add cupy/add cupy/raw_kernel \
    numba/vectorize numba/jit_kernel triton/add jax/add --axis n=2^10,2^16,2^20 --axis block=256 \
    --cache hot --max-time-per-point 0.3 --quiet --out "$W/small-hot" > "$W/small-hot.log" 2>&1
echo "   rc=$? $(grep -E '^cubench: [0-9]+ ok' "$W/small-hot.log" | tail -1)" | tee -a "$W/session.log"
"$PY" scripts/record/py_gpu_summary.py overhead "$W/small-hot" | tee -a "$W/session.log"

# gpu_aa.sh needs ~45 s after its last pair (compare, calibration, tar):
# give its pairs what is left less 150 s, and kill it only past that.
budget=$(($(left) - 150))
if [ "$budget" -gt 120 ]; then
    log "A/A pairs (gpu_aa.sh, ${budget} s for pairs)"
    CB_AA_NO_BUILD=1 CB_AA_BUDGET_S=$budget OUT=$OUT/aa timeout -k 10 $((budget + 130)) \
        scripts/record/gpu_aa.sh > "$W/aa.log" 2>&1
    echo "   gpu_aa rc=$?" | tee -a "$W/session.log"
    cp "$OUT/aa/summary.txt" "$W/aa-summary.txt" 2>/dev/null && tee -a "$W/session.log" < "$W/aa-summary.txt"
else
    log "A/A pairs skipped: ${budget} s left"
fi
exit 0
