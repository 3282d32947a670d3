#!/usr/bin/env bash
# run_gpu.sh BIN OUT - run the example family on a GPU: every point verifies
# (no fail or skip rows) and the float4 rows carry pct_ref. Exit 77 (ctest's
# skip) without a CUDA device.
set -euo pipefail
# shellcheck source=examples/run_gpu_lib.sh
. "$(dirname "$0")/../run_gpu_lib.sh"
bin=$1 out=$2
start_run "$bin" "$out"
"$bin" run saxpy --quick --quiet --out "$out"
read_rows "$out"
[ "$(printf '%s\n' "$rows" | wc -l)" -eq 6 ] || { echo "expected 6 rows:"; echo "$rows"; exit 1; }
expect_rows 3 '^3,saxpy/float4,.*,saxpy/scalar,[0-9]' "float4 rows lack pct_ref against saxpy/scalar"
rm -rf "$out"
echo "saxpy example: 6 points verified"
