#!/usr/bin/env bash
# gpu_tc.sh - the tensor-core ladder's GPU session in one command:
# build, verify every rung, measure the ladder against cuBLAS, profile the best
# rungs, sanitize, and keep SASS excerpts for the docs. Meant for one call on an
# H200 (about 6 minutes); every step has its own time limit and the steps run in
# order of importance, so a slow machine loses the sanitizers first.
#
#   OUT=/some/dir scripts/record/gpu_tc.sh      (default OUT: ./gpu-out)
#
# Writes $OUT/summary.txt (also printed) and $OUT/gpu_tc.tar.gz with every log,
# result directory and excerpt (work/...):
#   nvidia-smi.txt                GPU, clocks, driver
#   build.log, ptxas.txt          build; registers / smem / spills of each kernel
#   test_matmul_tc.log            every rung (5 x BF16/TF32) through its descriptor at 14 shapes,
#                                 skips for the shapes outside a rung's constraint,
#                                 alpha/beta through the kernels API, planted faults
#   tc-run/                       cubench run 'matmul_tc/*' + the cuBLAS BF16/TF32
#                                 ceilings at m = n = k = 4096 and 8192 (pct_ref)
#   ncu-*.txt                     tensor-pipe activity, DRAM / L2, bank conflicts
#   sanitize-{memcheck,racecheck}.log   every rung at odd shapes under compute-sanitizer
#   sass-summary.txt, sass-*.txt  instruction counts per kernel and main-loop excerpts
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. scripts/record/lib.sh # say, known_metrics, group_timeout; its own log below (no running seconds)
release_work work
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
log() { printf '== %s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$SUMMARY"; }
T0=$(date +%s)
BUDGET=${BUDGET:-420}   # seconds after which the optional steps (ncu, sanitizers, SASS) are skipped
TC_GLOB='matmul_tc/*'

step_env() {
    nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
        --format=csv > "$W/nvidia-smi.txt" 2>&1
    say "$(tail -1 "$W/nvidia-smi.txt")"
}

step_build() {
    cmake --preset release -DPython3_EXECUTABLE="$(command -v python3)" > "$W/build.log" 2>&1 &&
        cmake --build --preset release -j "$(nproc)" >> "$W/build.log" 2>&1
    local rc=$?
    say "build rc=$rc ($(tail -1 "$W/build.log"))"
    # Registers, shared memory and spills of every tensor-core kernel, as built.
    for f in kernels/matmul_tc_mma.cu kernels/matmul_tc_ldmatrix.cu kernels/matmul_tc_transpose.cu; do
        nvcc -gencode=arch=compute_90,code=sm_90 -O3 -Xptxas -v -Ikernels -c "$f" -o /dev/null
    done > "$W/ptxas.txt" 2>&1
    for f in kernels/*_sm90a.cu; do
        nvcc -gencode=arch=compute_90a,code=sm_90a -DCB_TC_BUILT_SM90A=1 -O3 -Xptxas -v -Ikernels -c "$f" -o /dev/null
    done >> "$W/ptxas.txt" 2>&1
    grep -E "C75[0-9][0-9]|warning" "$W/ptxas.txt" | head -5 | tee -a "$SUMMARY"
    return $rc
}

step_test() {
    timeout 200 ./build/tests/test_matmul_tc > "$W/test_matmul_tc.log" 2>&1
    local rc=$?
    # A kernel that never finishes (a barrier never completing) is the failure
    # a wrong TMA byte count or phase gives: the log's last line names the
    # point, and the later steps leave the Hopper rungs out.
    if [ $rc = 124 ]; then TC_GLOB='matmul_tc/[ml]*'; say "TIMEOUT: Hopper rungs left out below; last: $(tail -1 "$W/test_matmul_tc.log")"; fi
    ./build/tests/test_matmul_tc_layout >> "$W/test_matmul_tc.log" 2>&1
    say "test_matmul_tc rc=$rc (0 pass, 1 fail, 77 no GPU, 124 timeout)"
    grep -E "points verified|passed|check failed|FAIL" "$W/test_matmul_tc.log" | head -12 | tee -a "$SUMMARY"
}

step_run() {
    timeout 200 "$BIN" run "$TC_GLOB" matmul/cublas_bf16 matmul/cublas_tf32 --axis m=4096,8192 \
        --out "$W/tc-run" --quiet > "$W/tc-run.log" 2>&1
    say "ladder run rc=$? ($(tail -1 "$W/tc-run.log"))"
}

# One point of a rung under Nsight Compute: only the GEMM kernel, 2 launches.
ncu_point() {
    local bench=$1 m=$2 name=$3
    local want=(gpu__time_duration.sum sm__throughput.avg.pct_of_peak_sustained_elapsed
                sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
                sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
                sm__inst_executed_pipe_tensor_op_gmma.sum
                dram__throughput.avg.pct_of_peak_sustained_elapsed lts__t_sector_hit_rate.pct
                l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
                smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct
                smsp__warp_issue_stalled_barrier_per_warp_active.pct)
    local list
    list=$(known_metrics "$W/ncu-metrics.txt" "${want[@]}")
    group_timeout 90 ncu --clock-control none --profile-from-start off -k "regex:cb_tc_(mma|ldmatrix|wgmma)" -c 2 \
        --metrics "$list" "$BIN" run "$bench" --axis "m=$m" --profile --no-cupti --quiet \
        --out "$W/ncu-run-$name" > "$W/ncu-$name.txt" 2>&1
    say "ncu $bench m=$m rc=$?"
    grep -E "cb_tc_|gpu__time|pct|gmma|hmma|bank|hit_rate" "$W/ncu-$name.txt" | head -14 | tee -a "$SUMMARY"
}

step_ncu() {
    ncu --query-metrics --chip gh100 > "$W/ncu-metrics.txt" 2>&1 || true
    if [ "$TC_GLOB" = 'matmul_tc/*' ]; then
        ncu_point matmul_tc/wgmma_cluster_bf16 8192 cluster-bf16
        ncu_point matmul_tc/wgmma_ws_bf16 8192 ws-bf16
        ncu_point matmul_tc/wgmma_ws_tf32 8192 ws-tf32
    fi
    ncu_point matmul_tc/ldmatrix_bf16 4096 ldmatrix-bf16
}

step_sanitize() {
    # Every rung at odd shapes: (129, 136, 72) runs everywhere; (129, 130, 72)
    # leaves rung 1 and the TF32 wgmma rungs running with n = 130.
    local q=(--quick --no-cupti --min-samples 6 --max-time-per-point 0 --quiet)
    for tool in memcheck racecheck; do
        group_timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$BIN" run "$TC_GLOB" \
            --axis m=129 --axis n=136,130 --axis k=72 "${q[@]}" --out "$W/san-$tool" \
            > "$W/sanitize-$tool.log" 2>&1
        say "$tool matmul_tc/*: rc=$? (0 clean, 9 errors, 124 timeout) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$W/sanitize-$tool.log" | tail -1)"
    done
}

step_sass() {
    command -v cuobjdump > /dev/null || { say "no cuobjdump"; return; }
    local objs
    objs=$(find build/CMakeFiles -name 'matmul_tc_*.o' | sort)
    : > "$W/sass-summary.txt"
    for o in $objs; do
        local base
        base=$(basename "$o" .cu.o)
        cuobjdump -sass "$o" > "$W/sass-$base.txt" 2>&1
        # per kernel: how many of each instruction that tells the story
        awk -v f="$base" '/Function :/ {k=$3} /HGMMA|HMMA|LDSM|LDGSTS|UTMALDG|SYNCS|BAR\.|LDL|STL|USETMAXREG|FFMA/ {
                 for (i = 1; i <= NF; i++) if ($i ~ /^(HGMMA|HMMA|LDSM|LDGSTS|UTMALDG|SYNCS|BAR|LDL|STL|USETMAXREG|FFMA)/) {
                     split($i, p, "."); c[k" "p[1]]++ } }
             END { for (x in c) print f, x, c[x] }' "$W/sass-$base.txt" | sort >> "$W/sass-summary.txt"
    done
    grep -E "HGMMA|HMMA|LDL|STL" "$W/sass-summary.txt" | awk '{print $1, $3, $4}' | sort -u | head -20 | tee -a "$SUMMARY"
}

step_table() {
    python3 - "$W/tc-run/results.csv" <<'PY' | tee -a "$SUMMARY"
import csv, sys
try:
    rows = list(csv.DictReader(open(sys.argv[1])))
except OSError as e:
    print("no results:", e); sys.exit(0)
def f(x, d=1):
    try: return f"{float(x):.{d}f}"
    except (TypeError, ValueError): return "-"
def e(x):
    try: return f"{float(x):.2e}"
    except (TypeError, ValueError): return "-"
print(f"{'benchmark':26s} {'shape':20s} {'status':6s} {'TFLOP/s':>8s} {'% cuBLAS':>8s} {'verify_err':>10s}  note")
for r in rows:
    print(f"{r['benchmark']:26s} {r['axes']:20s} {r['status']:6s} {f(r['tflops']):>8s} "
          f"{f(r['pct_ref']):>8s} {e(r['verify_error']):>10s}  "
          f"{(r['note'] if r['status'] in ('ok', 'noisy') else r['reason'])[:90]}")
PY
}

for s in env build test run ncu sanitize sass table; do
    elapsed=$(( $(date +%s) - T0 ))
    case $s in ncu | sanitize | sass)
        if [ "$elapsed" -gt "$BUDGET" ]; then log "skip $s: ${elapsed} s > BUDGET=$BUDGET s"; continue; fi ;;
    esac
    log "step $s (${elapsed} s so far)"
    "step_$s"
    if [ "$s" = build ] && [ ! -x "$BIN" ]; then say "build failed: stopping"; break; fi
done
log "done in $(( $(date +%s) - T0 )) s"
cp "$SUMMARY" "$W/"
tar -C "$OUT" -czf "$OUT/gpu_tc.tar.gz" work && rm -rf "$W"
ls -la "$OUT"
