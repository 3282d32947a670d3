#!/usr/bin/env bash
# run_gpu.sh BIN OUT - run the example rung and variant on a GPU: every point
# verifies (no fail or skip rows) and each row carries its ladder's
# reference percentage. Exit 77 (ctest's skip) without a CUDA device.
set -euo pipefail
# shellcheck source=examples/run_gpu_lib.sh
. "$(dirname "$0")/../run_gpu_lib.sh"
bin=$1 out=$2
start_run "$bin" "$out"
# vecadd's n (a length) and matmul's n (a dimension): each its own --axis scope.
"$bin" run vecadd/two_float4_per_thread vecadd/float4_per_thread matmul/cublas_fp32 matmul/smem_2x \
    --axis 'vecadd/*:n=1000003,2^24' --axis block=256 --axis m=255,1024 --quick --quiet \
    --out "$out"
read_rows "$out"
expect_rows 2 '^[0-9]*,vecadd/two_float4_per_thread,' "expected 2 rows of the new variant"
expect_rows 2 '^[0-9]*,matmul/smem_2x,.*,matmul/cublas_fp32,[0-9]' \
    "the new rung's rows lack pct_ref against matmul/cublas_fp32"
rm -rf "$out"
echo "ladder example: the new variant and rung verified"
