#!/usr/bin/env bash
# fleet_gpu_smoke.sh CUBENCH OUT [RUNS] - the fleet task and report on one GPU
# machine without Slurm: RUNS (default 4) runs of fleet_task.sh with the
# default fleet selection (--quick --min-samples 10: 159 points, about a
# minute each on an H200), each pretending to be array task i on its own
# node (run name <host>-t<i>_<GPU UUID>), then `cubench fleet OUT` and, with
# a Python that has the reports' requirements, the HTML page. Four runs: each
# is judged against three others (two would leave no spread to judge by).
#
# What a good result looks like (the same GPU RUNS times, so one model):
#   - OUT/<host>-t0_GPU-<uuid>/ ... one directory per run, named by the UUID
#     that `cubench env` reports for device 0;
#   - OUT/fleet-report.md: one model section with five reference points
#     (vecadd, pinned H2D, pinned D2H, cuBLAS FP32, ladder best), no problem,
#     every run `ok` at the default 5% tolerance (run-to-run spread on one
#     H200 is about 2.5%, tests/data/h200-aa*) and exit 0 - unless the card
#     heats up over the runs: then the later runs' matmul figures come out
#     slow with a lower SM clock and a throttle reason in the evidence, which
#     is the report doing its job (exit 1);
#   - OUT/_fleet-html/index.html with one strip plot.
# Exit: cubench fleet's exit code (0 expected), 2 for bad arguments.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: fleet_gpu_smoke.sh CUBENCH OUT [RUNS]" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
cubench=$(realpath "$1")
out=$(realpath -m "$2")
runs=${3:-4}
[ ! -e "$out" ] || [ -z "$(ls -A "$out")" ] || { echo "fleet_gpu_smoke: $out is not empty" >&2; exit 2; }
mkdir -p "$out"
echo "$runs" >"$out/expected.tmp"
mkdir -p "$out/_fleet" && mv "$out/expected.tmp" "$out/_fleet/expected"
for ((i = 0; i < runs; i++)); do
    SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_JOB_ID=smoke "$here/fleet_task.sh" "$out" "$cubench" 0 \
        '%h-t%a' 1 -- vecadd/grid_stride_float4 transfers/memcpy_async matmul/cublas_fp32 \
        matmul/pipelined matmul/warptiled vecadd/host matmul/host_blocked --axis memory=pinned \
        --quick --min-samples 10 || echo "fleet_gpu_smoke: task $i exited $?" >&2
done
rc=0
"$cubench" fleet "$out" --markdown "$out/fleet-report.md" --csv "$out/fleet-report.csv" || rc=$?
py=${PYTHON:-$src/.venv/bin/python}
if "$py" -c 'import matplotlib, numpy' 2>/dev/null; then
    (cd "$src" && "$py" -m reports --fleet "$out" -o "$out/_fleet-html" --cubench "$cubench") || true
fi
echo "fleet_gpu_smoke: cubench fleet exit $rc; report in $out/fleet-report.md" >&2
exit "$rc"
