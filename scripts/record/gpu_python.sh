#!/usr/bin/env bash
# gpu_python.sh - the GPU session of the Python package (docs/python.md), one
# command of about six minutes on an H200 with PyTorch, CuPy, JAX, Numba and
# Triton installed for python3. Everything lands in $OUT/python (default
# ./gpu-out/python) and is packed into $OUT/python-session.tar.gz.
#
#   1  build libcubench.so and cubench (release preset)
#   2  python -m cubench env: the C doctor plus every Python framework found
#   3  each framework family at its default sizes, one process per framework
#      (their memory pools and CUDA libraries stay apart), 0.3 s per point
#   4  the optional families' adds (pycuda, tensorflow, rapids, opencv; numpy)
#      at 2^20 and 2^24: skip rows with the reason where not installed
#   5  C and Python in one run directory: matmul at 4096^3 next to cuBLAS
#      (pct_ref = the framework's share of raw cuBLAS), vector add at 2^28
#   6  scripts/record/py_event_loop.py: torch.add at 2^28 in a plain CUDA-event loop
#      and through cubench, cold and hot, in one process (check: within 1 %)
#   7  each framework's overhead at small n: every add, C and Python, at
#      n = 2^10, 2^16, 2^20 in hot mode (batched launches: a sample is the
#      rate at which the framework issues calls from Python)
#   8  cupy.add vs torch.add: the CUPTI kernel names of step 5, and Nsight
#      Compute counters of one run of each add kernel (scripts/record/py_add_kernels.py)
#   9  scripts/record/py_triton_probe.py: the Triton matmul's instruction path and
#      speed per tile shape and B layout (exploration data for its tiles)
#  10  a summary of all of it (scripts/record/py_gpu_summary.py), and the tarball
# The event loop runs right after the build: it is the check that needs the
# GPU most, so a deadline never takes it.
# Meant for a GPU machine that runs one command for at most 10 minutes: every step gets
# what is left of DEADLINE (default 540 s) and is skipped when too little
# is, and the tarball is written on any exit, so a slow step costs only
# itself.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/record/lib.sh
python_session python python-session.tar.gz
FAST=(--max-time-per-point 0.3 --quiet)
N28=268435456
DEADLINE=${DEADLINE:-540}
limit() { # limit WANT: WANT seconds, or what is left before DEADLINE (0: skip the step)
    local left=$((DEADLINE - SECONDS - 15))
    if [ "$left" -lt 20 ]; then echo 0; elif [ "$left" -lt "$1" ]; then echo "$left"; else echo "$1"; fi
}
run() { # run NAME TIMEOUT ARGS...: python -m cubench ARGS, log in $W/NAME.log
    local name=$1 t
    t=$(limit "$2")
    shift 2
    if [ "$t" -eq 0 ]; then log "$name: skipped, past the deadline"; return; fi
    log "$name: python -m cubench $* (limit ${t} s)"
    timeout -k 10 "$t" "$PY" -m cubench "$@" > "$W/$name.log" 2>&1
    echo "   rc=$? $(grep -E '^cubench: [0-9]+ ok' "$W/$name.log" | tail -1)" | tee -a "$W/session.log"
}

log "build"
{ cmake --preset release -DPython3_EXECUTABLE="$(command -v "$PY")" &&
  cmake --build --preset release -j "$(nproc)" --target cubench_shared cubench; } > "$W/build.log" 2>&1 ||
    { tail -20 "$W/build.log"; exit 1; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
    --format=csv > "$W/nvidia-smi.csv" 2>&1

log "env"
"$PY" -m cubench env > "$W/env.txt" 2>&1
echo "rc=$?" >> "$W/env.txt"
sed -n '/Python frameworks/,$p' "$W/env.txt"

log "event loop vs cubench: torch.add at 2^28, cold and hot"
t=$(limit 90)
[ "$t" -gt 0 ] && timeout -k 10 "$t" "$PY" scripts/record/py_event_loop.py --out "$W/event-loop" 2>&1 | tee "$W/event-loop.log"

for fam in numba torch cupy triton jax; do
    run "$fam" 90 run "$fam" "${FAST[@]}" --out "$W/$fam"
done
run others 40 run numpy/add pycuda/add tensorflow/add rapids/add opencv/add --axis n=2^20,2^24 \
    "${FAST[@]}" --out "$W/others"

run mixed-matmul 60 run matmul/cublas_fp32 matmul/cublas_tf32 matmul/cublas_bf16 'torch/matmul_*' \
    'cupy/matmul_*' 'triton/matmul_*' numba/matmul_smem_fp32 --axis m=4096 "${FAST[@]}" \
    --out "$W/mixed-matmul"
run mixed-vecadd 60 run vecadd/float4_per_thread vecadd/thread_per_elem torch/add cupy/add \
    cupy/elementwise_kernel cupy/raw_kernel numba/vectorize numba/jit_kernel triton/add jax/add \
    --axis n=2^28 --axis block=256,1024 "${FAST[@]}" --out "$W/mixed-vecadd"
ADDS=(vecadd/float4_per_thread torch/add cupy/add cupy/raw_kernel numba/vectorize numba/jit_kernel
      triton/add jax/add)
run small-hot 60 run "${ADDS[@]}" --axis n=2^10,2^16,2^20 --axis block=256 --cache hot \
    "${FAST[@]}" --out "$W/small-hot"

log "Nsight Compute: the add kernels at 2^28"
find_ncu
METRICS=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
METRICS+=,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum
METRICS+=,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum
METRICS+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
METRICS+=,launch__grid_size,launch__block_size,launch__registers_per_thread
METRICS+=,sm__warps_active.avg.pct_of_peak_sustained_active
t=$(limit 90)
if [ -n "$NCU" ] && [ "$t" -gt 0 ]; then
    timeout -k 10 "$t" "$NCU" --profile-from-start off --clock-control none --metrics "$METRICS" --csv \
        "$PY" scripts/record/py_add_kernels.py --n $N28 > "$W/ncu-add.csv" 2> "$W/ncu-add.log"
    echo "   ncu rc=$?" | tee -a "$W/session.log"
else
    echo "   ncu not found, or past the deadline" | tee -a "$W/session.log"
fi

log "Triton matmul: instruction path and speed per tile shape and B layout"
t=$(limit 120)
[ "$t" -gt 0 ] && timeout -k 10 "$t" "$PY" scripts/record/py_triton_probe.py --out "$W/triton-probe.json" \
    2>&1 | tee "$W/triton-probe.log"

log "summary"
{
    "$PY" scripts/record/py_gpu_summary.py runs "$W"/torch "$W"/cupy "$W"/jax "$W"/numba "$W"/triton \
        "$W"/others "$W"/mixed-matmul "$W"/mixed-vecadd
    "$PY" scripts/record/py_gpu_summary.py overhead "$W"/small-hot
    if [ -f "$W/ncu-add.csv" ]; then "$PY" scripts/record/py_gpu_summary.py ncu "$W/ncu-add.csv" $N28; fi
} 2>&1 | tee "$W/summary.txt"
exit 0  # each step's status is in session.log; the EXIT trap packs the tarball

