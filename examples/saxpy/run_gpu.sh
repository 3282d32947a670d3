#!/usr/bin/env bash
# run_gpu.sh BIN OUT - run the example family on a GPU: every point verifies
# (no fail or skip rows) and the float4 rows carry pct_ref. Exit 77 (ctest's
# skip) without a CUDA device.
set -euo pipefail
bin=$1 out=$2
rm -rf "$out"
rc=0
"$bin" env >/dev/null 2>&1 || rc=$?
if [ "$rc" -eq 3 ]; then
    echo "no CUDA device: skipped"
    exit 77
fi
"$bin" run saxpy --quick --quiet --out "$out"
rows=$(tail -n +2 "$out/results.csv")
[ "$(printf '%s\n' "$rows" | wc -l)" -eq 6 ] || { echo "expected 6 rows:"; echo "$rows"; exit 1; }
if printf '%s\n' "$rows" | grep -E ',(fail|skip),'; then echo "a point did not verify"; exit 1; fi
[ "$(printf '%s\n' "$rows" | grep -c '^3,saxpy/float4,.*,saxpy/scalar,[0-9]')" -eq 3 ] ||
    { echo "float4 rows lack pct_ref against saxpy/scalar"; exit 1; }
rm -rf "$out"
echo "saxpy example: 6 points verified"
