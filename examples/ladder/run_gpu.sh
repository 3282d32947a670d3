#!/usr/bin/env bash
# run_gpu.sh BIN OUT - run the example rung and variant on a GPU: every point
# verifies (no fail or skip rows) and each row carries its ladder's
# reference percentage. Exit 77 (ctest's skip) without a CUDA device.
set -euo pipefail
bin=$1 out=$2
rm -rf "$out"
rc=0
"$bin" env >/dev/null 2>&1 || rc=$?
if [ "$rc" -eq 3 ]; then
    echo "no CUDA device: skipped"
    exit 77
fi
# vecadd's n (a length) and matmul's n (a dimension): each its own --axis scope.
"$bin" run vecadd/two_float4_per_thread vecadd/float4_per_thread matmul/cublas_fp32 matmul/smem_2x \
    --axis 'vecadd/*:n=1000003,2^24' --axis block=256 --axis m=255,1024 --quick --quiet \
    --out "$out"
rows=$(tail -n +2 "$out/results.csv")
if printf '%s\n' "$rows" | grep -E ',(fail|skip),'; then echo "a point did not verify"; exit 1; fi
[ "$(printf '%s\n' "$rows" | grep -c '^[0-9]*,vecadd/two_float4_per_thread,')" -eq 2 ] ||
    { echo "expected 2 rows of the new variant"; exit 1; }
[ "$(printf '%s\n' "$rows" | grep -c '^[0-9]*,matmul/smem_2x,.*,matmul/cublas_fp32,[0-9]')" -eq 2 ] ||
    { echo "the new rung's rows lack pct_ref against matmul/cublas_fp32"; exit 1; }
rm -rf "$out"
echo "ladder example: the new variant and rung verified"
