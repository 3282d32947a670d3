#!/usr/bin/env bash
# gemm.sh [OUT] - the GEMM ladders at every shape and precision on one
# Hopper GPU (OUT: the argument, else $OUT, else ./gpu-out):
#   1. build for this machine's GPUs (scripts/build.sh native), and the
#      registers / spills of the tensor-core and multistage kernels
#      (nvcc -Xptxas -v, beside the GPU steps)
#   2. tests/gpu/test_matmul_tc: every tensor-core rung and the cuBLASLt FP8
#      reference at 23 shapes (ragged, odd, one row / column, large), the
#      kernels' API with alpha/beta, leading dimensions, unaligned bases,
#      and the planted faults
#   3. the recorded run, telemetry on (the default): matmul_tc/* with the
#      cuBLAS BF16/TF32 and cuBLASLt FP8 references, the FP32 SIMT rungs
#      pipelined and multistage with cuBLAS FP32, at 8192^3, 4096^3,
#      4093^3, 8191 x 8193 x 4095, 1000 x 3000 x 200 and 4096 x 1 x 4096
#      (one run directory per shape; every reference in the same run), and
#      the BF16 top rungs at 8192 x 8192 x 4096, the aligned twin of
#      8191 x 8193 x 4095 (their difference is the staging copy)
#   4. compute-sanitizer memcheck and racecheck over the tensor-core rungs,
#      the FP8 rungs and the multistage rung at odd shapes (m = 129,
#      n = 131 or 136, k = 67 or 72: staged and strict paths), and over
#      the pipelined rung's skinny and ragged paths (m 1, 5, 129 by n 1,
#      3, 131 by k 67, 72)
#   5. torch/matmul_fp8 (torch._scaled_mm) beside cuBLASLt FP8 at 4096^3
#      and 8192^3 through python -m cubench; TF32 (rungs 4, 5, cuBLAS) at
#      4096^3 and 8192^3 with the SM clock locked at GEMM_LOCK_MHZ (only
#      when that is set: it changes the GPU's clocks for the run, which is
#      for a machine you own; --lock-clocks needs root)
#      TF32 again with the CUPTI range profiler (`--metrics`): the GPC
#      cycles of one run of each kernel, the comparison at matched clocks
#      on a machine whose clocks are not yours
#   6. the multistage rung's configurations at 4096^3, 8192^3, 4093^3 and
#      1000 x 3000 x 200 (the autotune sweep; gemm_tune.py prints the rows
#      of its table from it)
#   7. Nsight Compute on ldmatrix_bf16 at 4096^3: shared-memory bank
#      conflicts split by operation (loads: the ldmatrix; stores; all, with
#      the cp.async fills), and the wavefronts behind them
#   8. tests/gpu/test_matmul (the FP32 ladder, multistage's configurations)
#   9. the summary: gemm-summary.md with every row of step 3 and the
#      targets (BF16 >= cuBLAS at the odd shapes, >= 95 % at 1000 x 3000 x
#      200, >= 99 % at 8192^3; TF32 >= cuBLAS with both SM clocks shown;
#      FP8 >= 90 % of cuBLASLt; FP32 SIMT >= 95 % / 85 %)
# About 3 minutes on an H200 (161 and 198 s recorded, build, tests, runs and
# sanitizers included); steps 5-8 start only before BUDGET seconds
# (default 290) and stop within 45-60 s each (test_matmul 150 s), so the
# whole stays under 9 minutes; every step has its own timeout.
#
# Writes under OUT: summary.txt (also printed), gemm-summary.md, build.log,
# ptxas.txt, ffma-banks.txt (scripts/record/ffma_banks.py over the
# pipelined rung's kernels), test_matmul_tc.log, test_matmul.log, run-SHAPE/ (run
# directories), tune/, san-{memcheck,racecheck}.log and their runs,
# ncu-ldmatrix.log, nvidia-smi.txt.
# Needs: the CUDA toolkit, libjansson-dev, python3; compute-sanitizer and
# ncu on PATH or under /usr/local/cuda/bin, /opt/nvidia/nsight-compute.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. scripts/record/lib.sh
open_out "${1:-}"
BUDGET=${BUDGET:-290}
export PATH=$PATH:/usr/local/cuda/bin
over_budget() {
    if [ $(( $(date +%s) - T0 )) -ge "$BUDGET" ]; then say "skipped: $1 (past the ${BUDGET} s budget)"; return 0; fi
    return 1
}
TC_REFS=(matmul/cublas_bf16 matmul/cublas_tf32 matmul/cublaslt_fp8)
FP32=(matmul/cublas_fp32 matmul/pipelined matmul/multistage)

step_env() {
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
        --format=csv > "$OUT/nvidia-smi.txt" 2>&1
    say "GPU: $(tail -1 "$OUT/nvidia-smi.txt")"
    find_ncu
    SAN=$(command -v compute-sanitizer || true)
    say "ncu: ${NCU:-not found}; compute-sanitizer: ${SAN:-not found}"
}

# Registers, shared memory and spills as ptxas reports them (one core, in
# the background while the GPU works).
step_ptxas() {
    (
        for f in kernels/*_sm90a.cu; do
            echo "== $f"
            nvcc -gencode=arch=compute_90a,code=sm_90a -DCB_TC_BUILT_SM90A=1 -O3 -std=c++17 -Xptxas -v \
                -Ikernels -Ikernels/detail -c "$f" -o /dev/null 2>&1
        done
        for f in kernels/matmul_multistage.cu kernels/matmul_tc_stage.cu; do
            echo "== $f"
            nvcc -gencode=arch=compute_90,code=sm_90 -O3 -std=c++17 -Xptxas -v -Ikernels -Ikernels/detail \
                -c "$f" -o /dev/null 2>&1
        done
        # The pipelined rung as a cubin: ptxas's report, and the SASS of the
        # FP32 rungs' register-bank count (ffma_banks.py; the FMA order of
        # cb_wt_outer_fma was chosen by it, and a new ptxas can move it).
        echo "== kernels/matmul_pipelined.cu"
        nvcc -gencode=arch=compute_90,code=sm_90 -O3 -std=c++17 -Xptxas -v -Ikernels -Ikernels/detail \
            -cubin kernels/matmul_pipelined.cu -o "$OUT/pipelined.cubin" 2>&1 &&
            python3 scripts/record/ffma_banks.py "$OUT/pipelined.cubin" \
                --kernel cb_matmul_warptile_kernel > "$OUT/ffma-banks.txt" 2>&1
        rm -f "$OUT/pipelined.cubin"
    ) > "$OUT/ptxas.txt" 2>&1 &
    PTXAS_PID=$!
}

step_test_tc() {
    log "tests/gpu/test_matmul_tc"
    timeout 200 build-native/tests/test_matmul_tc > "$OUT/test_matmul_tc.log" 2>&1
    local rc=$?
    say "test_matmul_tc rc=$rc (0 pass, 1 fail, 77 no GPU, 124 timeout: the log's last line is the point)"
    grep -E "points verified|passed|check failed|FAIL" "$OUT/test_matmul_tc.log" | head -12 | tee -a "$SUMMARY"
    [ $rc = 124 ] && say "last: $(tail -1 "$OUT/test_matmul_tc.log")"
}

# SHAPE M N K: one run directory with every rung and its reference.
run_shape() {
    local name=$1 m=$2 n=$3 k=$4
    timeout 150 "$BIN" run 'matmul_tc/*' "${TC_REFS[@]}" "${FP32[@]}" \
        --axis "m=$m" --axis "n=$n" --axis "k=$k" --max-time-per-point 0.5 --out "$OUT/run-$name" --quiet \
        > "$OUT/run-$name.log" 2>&1
    say "run $name: rc=$? $(tail -1 "$OUT/run-$name.log")"
}

step_run() {
    log "the recorded run, one directory per shape"
    run_shape 8192 8192 m m
    run_shape 4096 4096 m m
    run_shape 8191x8193x4095 8191 8193 4095
    run_shape 4093 4093 m m
    run_shape 1000x3000x200 1000 3000 200
    run_shape 4096x1x4096 4096 1 4096
    # The aligned twin of 8191 x 8193 x 4095: the difference is the staging.
    timeout 60 "$BIN" run matmul_tc/wgmma_ws_bf16 matmul_tc/wgmma_cluster_bf16 matmul/cublas_bf16 \
        --axis m=8192 --axis n=8192 --axis k=4096 --max-time-per-point 0.5 \
        --out "$OUT/run-8192x8192x4096" --quiet \
        > "$OUT/run-8192x8192x4096.log" 2>&1
    say "run 8192x8192x4096: rc=$? $(tail -1 "$OUT/run-8192x8192x4096.log")"
}

# The Python peer of the FP8 rungs, beside cuBLASLt in the same process.
step_torch() {
    over_budget "torch/matmul_fp8" && return
    log "torch._scaled_mm beside cuBLASLt FP8 (python -m cubench)"
    PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} CUBENCH_LIB=$PWD/build-native/libcubench.so \
        timeout 45 python3 -m cubench run matmul/cublaslt_fp8 torch/matmul_fp8 --axis m=4096,8192 \
        --out "$OUT/run-torch-fp8" --quiet > "$OUT/run-torch-fp8.log" 2>&1
    say "torch fp8: rc=$? $(tail -1 "$OUT/run-torch-fp8.log")"
}

# TF32 against cuBLAS with the SM clock locked below the power cap, on a
# machine whose clocks are yours to change (GEMM_LOCK_MHZ, e.g. 1400;
# --lock-clocks needs root and is refused with exit 2 otherwise).
step_tf32_locked() {
    [[ -n ${GEMM_LOCK_MHZ:-} ]] || { say "TF32 at a locked clock: skipped (GEMM_LOCK_MHZ unset)"; return; }
    over_budget "TF32 at a locked clock" && return
    log "TF32 at a locked $GEMM_LOCK_MHZ MHz SM clock"
    timeout 45 "$BIN" run matmul/cublas_tf32 matmul_tc/wgmma_ws_tf32 matmul_tc/wgmma_cluster_tf32 \
        --axis m=4096,8192 --lock-clocks "$GEMM_LOCK_MHZ" --max-time-per-point 0.5 --out "$OUT/run-tf32-locked" \
        --quiet > "$OUT/run-tf32-locked.log" 2>&1
    say "tf32 locked: rc=$? (2: the clock could not be locked) $(tail -1 "$OUT/run-tf32-locked.log")"
}

# TF32 at matched clocks without touching them: the GPC cycles each kernel
# takes in one replayed run (CUPTI's range profiler, `--metrics`), so the
# rung and cuBLAS compare per clock cycle whatever clock each ran at.
step_tf32_cycles() {
    over_budget "TF32 cycles" && return
    log "TF32 at matched clocks: elapsed GPC cycles per run (--metrics)"
    timeout 60 "$BIN" run matmul/cublas_tf32 matmul_tc/wgmma_ws_tf32 matmul_tc/wgmma_cluster_tf32 \
        --axis m=4096,8192 --metrics gpc__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second \
        --max-time-per-point 0.3 --out "$OUT/metrics-tf32" --quiet > "$OUT/metrics-tf32.log" 2>&1
    say "tf32 cycles: rc=$? $(tail -1 "$OUT/metrics-tf32.log")"
}

step_tune() {
    over_budget "the multistage sweep" && return
    log "multistage configurations (autotune sweep)"
    local configs # every configuration the rung has (its header's list)
    configs=$(sed -n 's/^ *"\(m[0-9]*n[0-9]*k[0-9]*s[0-9][^"]*\)".*/\1/p' kernels/matmul_multistage_kernels.h)
    timeout 45 "$BIN" run matmul/cublas_fp32 matmul/multistage --axis m=4096,8192,4093 \
        --axis "config=$configs" --max-time-per-point 0.3 --out "$OUT/tune/square" --quiet \
        > "$OUT/tune-square.log" 2>&1
    say "tune squares: rc=$? $(tail -1 "$OUT/tune-square.log")"
    timeout 20 "$BIN" run matmul/cublas_fp32 matmul/multistage --axis m=1000 --axis n=3000 \
        --axis k=200 --axis "config=$configs" --max-time-per-point 0.3 \
        --out "$OUT/tune/1000x3000x200" --quiet \
        > "$OUT/tune-1000.log" 2>&1
    say "tune 1000x3000x200: rc=$? $(tail -1 "$OUT/tune-1000.log")"
    python3 scripts/record/gemm_tune.py "$OUT/tune" 2>&1 | tee "$OUT/tune-table.txt" | tee -a "$SUMMARY"
}

step_sanitize() {
    [ -n "${SAN:-}" ] || { say "compute-sanitizer not found"; return; }
    local q=(--quick --no-cupti --no-telemetry --max-time-per-point 0 --quiet)
    for tool in memcheck racecheck; do
        log "compute-sanitizer $tool at 129 x (131, 136) x (67, 72)"
        group_timeout 60 "$SAN" --tool $tool --error-exitcode 9 "$BIN" run 'matmul_tc/*' matmul/multistage \
            --axis m=129 --axis n=131,136 --axis k=67,72 "${q[@]}" --out "$OUT/san-$tool" \
            > "$OUT/san-$tool.log" 2>&1
        say "$tool: rc=$? (0 clean, 9 errors, 124 timeout) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool.log" | tail -1)"
        # The FP32 rung's skinny and ragged paths (config auto: narrow n,
        # short m, clamped edges).
        group_timeout 60 "$SAN" --tool $tool --error-exitcode 9 "$BIN" run matmul/pipelined \
            --axis m=1,5,129 --axis n=1,3,131 --axis k=67,72 "${q[@]}" --out "$OUT/san-fp32-$tool" \
            > "$OUT/san-fp32-$tool.log" 2>&1
        say "$tool (pipelined): rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-fp32-$tool.log" | tail -1)"
    done
}

# The ldmatrix rung's bank conflicts by operation: the layout test predicts
# none for its ldmatrix reads and cp.async writes (tests/cpu/
# test_matmul_tc_layout.c); loads (op_ld) are the ldmatrix, the rest of the
# total the stores and the cp.async fills. Only the metrics this ncu knows.
step_ncu() {
    [ -n "${NCU:-}" ] || { say "ncu not found"; return; }
    over_budget "ncu on ldmatrix_bf16" && return
    log "ncu: ldmatrix_bf16 at 4096^3, bank conflicts by operation"
    "$NCU" --query-metrics --chip gh100 > "$OUT/ncu-metrics.txt" 2>&1
    local want=(l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
                l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
                l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
                l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
                l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
                l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
                smsp__sass_inst_executed_op_ldsm.sum smsp__inst_executed_op_ldsm.sum
                smsp__sass_inst_executed_op_ldgsts.sum smsp__inst_executed_op_ldgsts.sum
                smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
                sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active)
    local list
    list=$(known_metrics "$OUT/ncu-metrics.txt" "${want[@]}")
    group_timeout 45 "$NCU" --clock-control none --profile-from-start off -k "regex:cb_tc_ldmatrix" -c 1 \
        --metrics "$list" "$BIN" run matmul_tc/ldmatrix_bf16 --axis m=4096 --profile --no-cupti \
        --quiet --out "$OUT/ncu-run-ldmatrix" > "$OUT/ncu-ldmatrix.log" 2>&1
    say "ncu ldmatrix_bf16: rc=$? (${#have[@]} of ${#want[@]} metrics known to this ncu)"
    grep -E "bank|wavefront|ldsm|ldgsts|hmma" "$OUT/ncu-ldmatrix.log" | tee -a "$SUMMARY"
}

step_test_fp32() {
    over_budget "tests/gpu/test_matmul" && return
    log "tests/gpu/test_matmul (the FP32 ladder)"
    timeout 150 build-native/tests/test_matmul > "$OUT/test_matmul.log" 2>&1
    say "test_matmul rc=$? $(grep -E 'points verified|passed' "$OUT/test_matmul.log" | tail -2 | tr '\n' ' ')"
}

step_summary() {
    wait "${PTXAS_PID:-0}" 2> /dev/null
    say "ptxas: $(grep -c 'Compiling entry' "$OUT/ptxas.txt") kernels; spilling: $(grep -E 'spill stores' "$OUT/ptxas.txt" | grep -vc ' 0 bytes spill stores'); C75xx notes: $(grep -c 'C75' "$OUT/ptxas.txt")"
    say "FFMA register-bank conflicts of the FP32 rungs' main loops (ffma-banks.txt):"
    if [ -s "$OUT/ffma-banks.txt" ]; then
        sed 's/^/  /' "$OUT/ffma-banks.txt" | tee -a "$SUMMARY"
    else
        say "  not counted (nvcc -cubin failed: ptxas.txt has the compiler's own run)"
    fi
    python3 scripts/record/gemm_summary.py "$OUT" > "$OUT/gemm-summary.md" 2>&1
    say "gemm-summary.md:"
    tee -a "$SUMMARY" < "$OUT/gemm-summary.md"
    log "done"
}

step_env
build_native
step_ptxas
step_test_tc
step_run
step_sanitize
step_torch
step_tf32_locked
step_tf32_cycles
step_tune
step_ncu
step_test_fp32
step_summary
