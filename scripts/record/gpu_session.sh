#!/usr/bin/env bash
# gpu_session.sh STEP... - everything a GPU session does, in one command, so a
# borrowed GPU machine is used for a few full calls rather than many small ones.
# Writes logs and result directories under $OUT (default ./gpu-out) and packs
# them into $OUT/session.tar.gz.
#
# Steps:
#   build        configure + build (release preset)
#   tests        ctest -L gpu (every GPU test) and the GPU end-to-end pytest
#   sanitize     compute-sanitizer memcheck + racecheck over the GPU tests
#   vecadd       `cubench run 'vecadd*'` with defaults, twice (time + repeatability)
#   vecadd-best  the best variants at n = 2^28 and 2^30
#   matmul       the matmul ladder with defaults, and 4096^3 / 8192^3 records
#   transfers    the transfers family with defaults
#   cupti        CUPTI on vs off, event vs CUPTI agreement
#   profile      ncu and nsys on one point
#   aa           two runs of the same build for an A/A compare, plus a B with a known slowdown
#   bidir        bidirectional pinned copies without CUPTI, cold and hot
#   matmul-configs  the pipelined rung's tile configurations next to cuBLAS
#   matmul-check    the first rungs at 4096^3
#   explore      compile and run scratch/*.cu experiments (not part of cubench)
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/record/lib.sh # release_work, group_timeout; its own log below (to stdout)
release_work work
log() { printf '== %s %s\n' "$(date -u +%H:%M:%S)" "$*"; }
run() { log "$*"; "$@"; local rc=$?; log "rc=$rc: $1 ${2:-}"; return $rc; }

step_build() {
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv > "$W/nvidia-smi.csv" 2>&1
    cmake --preset release -DPython3_EXECUTABLE="$(command -v python3)" > "$W/cmake.log" 2>&1 &&
        cmake --build --preset release -j 16 > "$W/build.log" 2>&1
    local rc=$?
    tail -3 "$W/build.log"
    return $rc
}
step_tests() {
    ctest --test-dir build -L gpu --output-on-failure 2>&1 | tee "$W/ctest-gpu.log" | tail -25
    CUBENCH_BIN=$BIN CUBENCH_GPU_E2E=1 python3 -m pytest -q -p no:cacheprovider tests/py 2>&1 | tail -5
}
step_sanitize_vecadd() {
    for tool in memcheck racecheck; do
        group_timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $BIN run 'vecadd*' --axis n=1000,4097 \
            --axis grid=auto,2 --quick --no-cupti --min-samples 6 --max-time-per-point 0 --quiet \
            --out "$W/san-$tool-vecadd" > "$W/sanitize-$tool-vecadd.log" 2>&1
        echo "$tool vecadd*: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$W/sanitize-$tool-vecadd.log" | tail -1)"
    done
}
step_sanitize() {
    # Every rung of every family at small and odd sizes, through the runner,
    # under memcheck and racecheck (CUPTI off: the sanitizer is the profiler).
    local q=(--quick --no-cupti --min-samples 6 --max-time-per-point 0 --quiet)
    local sets=("vecadd*|--axis n=1000,4097 --axis grid=auto,2"
                "matmul/*|--axis m=127,129"
                "transfers/*|--axis bytes=4KiB,1052676")
    for tool in memcheck racecheck; do
        for set in "${sets[@]}"; do
            local glob=${set%%|*} args=${set#*|} name=${set%%[/*]*}
            # shellcheck disable=SC2086
            group_timeout 280 compute-sanitizer --tool $tool --error-exitcode 9 $BIN run "$glob" $args "${q[@]}" \
                --out "$W/san-$tool-$name" > "$W/sanitize-$tool-$name.log" 2>&1
            echo "$tool $glob: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$W/sanitize-$tool-$name.log" | tail -1)"
        done
    done
}
step_vecadd() {
    for i in 1 2; do
        /usr/bin/time -f "vecadd defaults run $i: %e s wall" $BIN run 'vecadd*' --out "$W/vecadd-defaults-$i" --quiet 2>&1 | tail -2
    done
}
step_vecadd_best() {
    $BIN run 'vecadd/grid_stride_float4' 'vecadd/grid_stride' 'vecadd/thread_per_elem' 'vecadd/float4_per_thread' \
        --axis n=2^28,2^30 --axis block=256,512,1024 --axis grid=auto,4sm,32sm \
        --axis ilp=1,2,4 --axis hint=none,stream --out "$W/vecadd-large" --quiet 2>&1 | tail -2
}
step_matmul_check() {
    $BIN run matmul/cublas_fp32 matmul/naive_coalesced matmul/smem_tiled --axis m=4096 --out "$W/matmul-check" --quiet 2>&1 | tail -1
    python3 - "$W/matmul-check/results.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{r['benchmark']:24s} {r['axes']:28s} {r['status']:5s} {float(r['tflops'] or 0):7.2f} TFLOP/s")
PY
}
step_matmul() {
    $BIN run 'matmul/*' --out "$W/matmul-defaults" --quiet 2>&1 | tail -3
}
step_transfers() {
    $BIN run 'transfers/*' --out "$W/transfers-defaults" --quiet 2>&1 | tail -3
}
step_cupti() {
    local pts=(vecadd/grid_stride_float4 --axis n=2^20:2^28:x4 --axis block=256 --axis grid=auto --axis ilp=4 --axis hint=stream)
    $BIN run "${pts[@]}" --out "$W/cupti-on" --quiet 2>&1 | tail -1
    $BIN run "${pts[@]}" --no-cupti --out "$W/cupti-off" --quiet 2>&1 | tail -1
    $BIN run "${pts[@]}" --timer cupti --out "$W/cupti-timer" --quiet 2>&1 | tail -1
    $BIN run matmul/cublas_fp32 matmul/pipelined --axis m=2048 --out "$W/cupti-matmul" --quiet 2>&1 | tail -1
    $BIN run 'transfers/memcpy_async' --axis bytes=2^20 --out "$W/cupti-transfers" --quiet 2>&1 | tail -1
}
step_profile() {
    local nsys=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
    local pt=(run vecadd/grid_stride_float4 --axis n=2^24 --axis block=256 --axis grid=auto --axis ilp=4 --axis hint=stream)
    ncu --clock-control none --profile-from-start off --metrics gpu__time_duration.sum,dram__bytes.sum \
        $BIN "${pt[@]}" --profile --no-cupti --out "$W/ncu-run" > "$W/ncu.log" 2>&1
    echo "ncu rc=$?"; grep -E "vecadd|gpu__time|dram__bytes" "$W/ncu.log" | head -8
    if [ -d .gpu-libs ]; then export LD_LIBRARY_PATH=$PWD/.gpu-libs:${LD_LIBRARY_PATH:-}; fi
    $nsys profile -t cuda,nvtx -o /tmp/cb --force-overwrite true $BIN "${pt[@]}" --no-cupti --out "$W/nsys-run" > "$W/nsys.log" 2>&1
    echo "nsys rc=$?"
    $nsys stats -r nvtx_sum /tmp/cb.nsys-rep > "$W/nsys-nvtx.txt" 2>&1
    head -20 "$W/nsys-nvtx.txt"
}
step_explore() {
    # Throw-away experiments kept out of the repository (scratch/ is carried).
    for f in scratch/*.cu; do
        [ -f "$f" ] || continue
        nvcc -arch=sm_90 -O3 -std=c++17 -o "/tmp/$(basename "$f" .cu)" "$f" && "/tmp/$(basename "$f" .cu)"
    done
}
step_aa() {
    # A/A: two runs of the same build over >= 100 points must flag nothing slower.
    local pts=('vecadd/grid_stride_float4' 'vecadd/grid_stride' --axis n=2^16:2^28:x4 --axis block=256,1024
               --axis grid=auto,32sm --axis ilp=1,4 --axis hint=none,stream)
    $BIN run "${pts[@]}" --out "$W/aa-A" --quiet 2>&1 | tail -1
    $BIN run "${pts[@]}" --out "$W/aa-B" --quiet 2>&1 | tail -1
    $BIN compare "$W/aa-A" "$W/aa-B" --markdown "$W/aa.md" --csv "$W/aa.csv"; echo "A/A compare rc=$?"
    head -3 "$W/aa.md"
    # A known slowdown: the evict-first hint is slower at large n; present its
    # samples under the plain variant's identity and the gate must flag it.
    local slow=('vecadd/grid_stride_float4' --axis n=2^26,2^28 --axis block=256 --axis grid=auto,32sm --axis ilp=1,4)
    $BIN run "${slow[@]}" --axis hint=none --out "$W/ab-A" --quiet 2>&1 | tail -1
    $BIN run "${slow[@]}" --axis hint=stream --out "$W/ab-B" --quiet 2>&1 | tail -1
    sed -i 's/hint=stream/hint=none/' "$W/ab-B/results.csv" "$W/ab-B/samples.csv"
    $BIN compare "$W/ab-A" "$W/ab-B" --markdown "$W/ab.md" --csv "$W/ab.csv"; echo "A/B (known slower) compare rc=$?"
    head -3 "$W/ab.md"
}
step_bidir() {
    local pts=(transfers/bidir --axis memory=pinned --axis bytes=2^26,2^28,2^30)
    $BIN run "${pts[@]}" --no-cupti --out "$W/bidir-nocupti" --quiet 2>&1 | tail -1
    $BIN run "${pts[@]}" --no-cupti --cache hot --out "$W/bidir-nocupti-hot" --quiet 2>&1 | tail -1
    for d in bidir-nocupti bidir-nocupti-hot; do
        python3 - "$W/$d/results.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(sys.argv[1].split('/')[-2], r['axes'], r['status'], round(float(r['gbps']), 1), 'GB/s')
PY
    done
}
step_matmul_configs() {
    $BIN run matmul/cublas_fp32 matmul/pipelined --axis m=4096,8192 \
        --axis config=auto,m128n128k8,m128n128k16,m128n64k8,m64n128k8,m128n256k8,m256n128k8 \
        --out "$W/matmul-configs" --quiet 2>&1 | tail -1
}
for s in "$@"; do
    log "step $s"
    "step_${s//-/_}" 2>&1 | tee -a "$OUT/session.log"
done
tar -C "$OUT" -czf "$OUT/session.tar.gz" work && rm -rf "$W"
ls -la "$OUT"
