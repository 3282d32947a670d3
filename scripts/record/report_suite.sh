#!/usr/bin/env bash
# report_suite.sh OUT_DIR - a fresh run of the whole default suite on this
# machine's GPUs, for the report's checks on data it was not written against
# (tests/data/h200-defaults-r2 was recorded before the phase, kind and counter
# columns): the run the report tests can then be pointed at with
#   CUBENCH_REPORT_RUNS=OUT_DIR/suite .venv/bin/python -m pytest reports/tests
# and the size and time of its page measured with
#   .venv/bin/python -m reports.benchmark OUT_DIR/suite
#
# Needs the GPU for one step only: `cubench run --device all` (about 150 s on
# an H200, the time tests/data/h200-defaults-r2 took). Building with
# `scripts/build.sh native` comes first (a few minutes on 16 cores). Drawing
# the report needs no GPU and is left to the machine the results are copied
# to, unless this machine has the report's Python packages (.venv), in which
# case the page is drawn too.
#
# Writes OUT_DIR/suite/ (results.csv, samples.csv, meta.json, side files),
# OUT_DIR/build.log, OUT_DIR/run.log, OUT_DIR/nvidia-smi.txt, and with .venv
# OUT_DIR/report/ and OUT_DIR/report.log. Exit: cubench run's status (0 every
# point ran, 1 a point failed), 2 bad usage or a failed build.
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
OUT=$(mkdir -p "$1" && cd "$1" && pwd) || { echo "$0: cannot make $1" >&2; exit 2; }
cd "$(dirname "$0")/../.." || exit 2

nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit \
    --format=csv > "$OUT/nvidia-smi.txt" 2>&1 || true
echo "report_suite: building (scripts/build.sh native)" >&2
scripts/build.sh native > "$OUT/build.log" 2>&1 ||
    { echo "report_suite: the build failed: $OUT/build.log" >&2; exit 2; }
start=$(date +%s)
echo "report_suite: cubench run --device all (about 150 s on an H200)" >&2
build-native/cubench run --device all --quiet --out "$OUT/suite" > "$OUT/run.log" 2>&1
status=$?
echo "report_suite: run exit $status after $(( $(date +%s) - start )) s" >&2
if [ -x .venv/bin/python ] && .venv/bin/python -c 'import matplotlib, numpy' 2>/dev/null; then
    .venv/bin/python -m reports "$OUT/suite" -o "$OUT/report" > "$OUT/report.log" 2>&1 ||
        echo "report_suite: the report failed: $OUT/report.log" >&2
fi
exit "$status"
