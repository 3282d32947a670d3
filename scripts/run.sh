#!/usr/bin/env bash
# run.sh [cubench run options...] - the main job on a fresh machine: install
# what is missing, build, run the default suite, and draw the report.
# Without a GPU, cubench says so and runs the CPU baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
out="results/$(date -u +%Y%m%d-%H%M%S)-$(hostname)"
rc=0
./build/cubench run --out "$out" "$@" || rc=$?
if [ -f "$out/results.csv" ]; then
    .venv/bin/python -m reports "$out" -o "$out/report" &&
        echo "report: $out/report/index.html" >&2
fi
exit $rc
