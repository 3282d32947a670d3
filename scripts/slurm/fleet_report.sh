#!/usr/bin/env bash
# fleet_report.sh - the job that runs after every array task of a fleet run
# (afterany: also after failed ones, so a failure is reported, not hidden):
#
#   sbatch ... fleet_report.sh OUT CUBENCH HTML_PYTHON [FLEET_ARGS...]
#
# writes OUT/fleet-report.md and OUT/fleet-report.csv with `cubench fleet`
# (docs/fleet.md) and OUT/fleet-report.rc (its exit code: 0 nothing flagged,
# 1 a run flagged or a task problem, 2 bad input), each also kept as
# OUT/_fleet/reports/report-JOBID.*. With HTML_PYTHON (a Python
# with the reports package's requirements; "" for none) also the HTML page
# OUT/_fleet-html/index.html (a name starting with _ is never taken for a
# run). The job exits with cubench fleet's code, so
# sacct shows FAILED when something was flagged.
set -uo pipefail
if [ $# -lt 3 ]; then
    echo "usage: fleet_report.sh OUT CUBENCH HTML_PYTHON [FLEET_ARGS...]" >&2
    exit 2
fi
out=$1 cubench=$2 python=$3
shift 3
"$cubench" fleet "$out" --markdown "$out/fleet-report.md" --csv "$out/fleet-report.csv" "$@"
rc=$?
echo "$rc" >"$out/fleet-report.rc"
# Keep every report: a rerun replaces the one at the top.
mkdir -p "$out/_fleet/reports" &&
    for ext in md csv rc; do
        cp -f "$out/fleet-report.$ext" "$out/_fleet/reports/report-${SLURM_JOB_ID:-local}.$ext" 2>/dev/null
    done
if [ -n "$python" ] && [ "$rc" -le 1 ]; then
    # The reports package lives beside this script's checkout; the job runs a
    # spooled copy of the script, so the checkout comes in the environment.
    (cd "${CUBENCH_SOURCE_DIR:?}" && PYTHONDONTWRITEBYTECODE=1 "$python" -m reports --fleet "$out" -o "$out/_fleet-html" \
        --cubench "$cubench" "$@") ||
        echo "fleet_report: the HTML page failed (the markdown and CSV stand)" >&2
fi
exit "$rc"
