#!/usr/bin/env bash
# run_benchmarks.sh BUILD_DIR OUT_DIR [SERIES] - the history's figures
# (tests/history/README.md): how well `history check` finds change points,
# and how long add, check and the dashboard take at scale, on SQLite and on
# PostgreSQL. Writes OUT_DIR/detection.md, detection-sweep.md, scale.md.
# Needs a build with the tests (history_sim, history_scale, cubench), the
# .venv of scripts/setup.sh, xz, and for PostgreSQL its server binaries
# (tests/history/pg_server.sh; without them the PostgreSQL rows say so).
# About 15 minutes on 2 busy cores, most of it storing a million results
# twice; SERIES (default 10000) sets the generated series per row.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: run_benchmarks.sh BUILD_DIR OUT_DIR [SERIES]" >&2; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
series=${3:-10000}
cubench=$build/cubench
python=$src/.venv/bin/python
[ -x "$python" ] || python=python3
tmp=$(mktemp -d /tmp/cb-history-bench.XXXXXX)
pg_dir=""
cleanup() {
    [ -n "$pg_dir" ] && "$src/tests/history/pg_server.sh" stop "$pg_dir" || true
    rm -rf "$tmp"
}
trap cleanup EXIT
say() { echo "run_benchmarks: $*" >&2; }

machine_line() {
    echo "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, $(date -u +%Y-%m-%dT%H:%MZ)"
}

# ---- detection: generated series from the recorded H200 A/A runs ----
aa=$src/tests/data/h200-aa-r2
mkdir -p "$tmp/A1"
cp "$aa/A1/meta.json" "$tmp/A1/"
xz -dc "$aa/A1/results.csv.xz" >"$tmp/A1/results.csv"
xz -dc "$aa/A1/samples.csv.xz" >"$tmp/A1/samples.csv"
say "detection: $series series per row"
{
    echo "# history check on generated series"
    echo
    echo "\`tests/history/history_sim tests/data/h200-aa-r2 A1 --series $series\` (A1: h200-aa-r2/A1 with its samples.csv decompressed), built at $(git -C "$src" rev-parse --short=12 HEAD)."
    echo
    "$build/tests/history/history_sim" "$aa" "$tmp/A1" --series "$series"
} >"$out/detection.md"
say "detection: the same p threshold for both methods, five values"
{
    echo "# the p threshold swept, both methods alike (p_split = 10 p_merge)"
    for p in 0.0001 0.0003 0.001 0.003 0.01; do
        echo
        "$build/tests/history/history_sim" "$aa" "$tmp/A1" --series $((series / 3)) --p-merge $p |
            grep -E '^(history_sim|\| (series|---|no step|\+3%, sigma <= 1% \||\+5%, sigma 1.5|\+5%, sigma 2-3|machine))' |
            grep -v hunter-alone
    done
} >"$out/detection-sweep.md"

# ---- scale: a 700-point run, then 1,000 runs x 700 points ----
# The run: h200-defaults-r2 (654 points) and 46 of its points again under a
# new axis, so 700; each add gets a new start time (a new identity).
run=$tmp/run700
mkdir -p "$run"
cp "$src/tests/data/h200-defaults-r2/meta.json" "$run/"
xz -dc "$src/tests/data/h200-defaults-r2/samples.csv.xz" >"$tmp/samples.csv"
"$python" - "$src/tests/data/h200-defaults-r2/results.csv" "$tmp/samples.csv" "$run" <<'EOF'
import csv, sys
res, smp, out = sys.argv[1], sys.argv[2], sys.argv[3]
rows = list(csv.DictReader(open(res, newline="")))
extra = [dict(r, axes=r["axes"] + ";copy=1") for r in rows if r["status"] in ("ok", "noisy")][:700 - len(rows)]
picked = {(r["benchmark"], r["axes"][:-len(";copy=1")]) for r in extra}
with open(f"{out}/results.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
    w.writeheader(); w.writerows(rows + extra)
with open(smp, newline="") as fin, open(f"{out}/samples.csv", "w", newline="") as fout:
    r = csv.DictReader(fin); w = csv.DictWriter(fout, fieldnames=r.fieldnames, lineterminator="\n")
    w.writeheader(); copies = []
    for s in r:
        w.writerow(s)
        if (s["benchmark"], s["axes"]) in picked:
            copies.append(dict(s, axes=s["axes"] + ";copy=1"))
    w.writerows(copies)
print(f"{len(rows) + len(extra)} points", file=sys.stderr)
EOF
samples=$(($(wc -l <"$run/samples.csv") - 1))

timed() { # LABEL COMMAND... : one line "LABEL | wall s | user+sys s"
    local label=$1
    shift
    /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/stderr" || {
        say "FAILED: $label: $(tail -1 "$tmp/stderr")"; return 1; }
    awk -v label="$label" '{ printf "| %s | %.2f | %.2f |\n", label, $1, $2 + $3 }' "$tmp/time"
}

scale_rows() { # BACKEND URL
    local backend=$1 url=$2
    for i in 1 2 3 4 5; do
        sed -i "s/\"started\": *\"[^\"]*\"/\"started\": \"2027-06-0${i}T00:00:00Z\"/" "$run/meta.json"
        timed "$backend: \`history add\` of the 700-point run ($samples samples), try $i" \
            "$cubench" history add --db "$url" "$run"
    done
    say "$backend: storing 1,000 runs x 700 points"
    "$build/tests/history/history_scale" "$url" --runs 1000 --points 700 >"$tmp/scale.txt"
    printf '| %s: %s | | |\n' "$backend" "$(cat "$tmp/scale.txt")"
    timed "$backend: \`history check\` over 1,005 runs x 700 points" "$cubench" history check --db "$url"
    timed "$backend: \`history export\` of it" "$cubench" history export --db "$url" -o "$tmp/e.json"
    timed "$backend: \`python3 -m reports --history\` (export + site)" \
        "$python" -m reports --history "$url" -o "$tmp/site-$backend" --cubench "$cubench"
    printf '| %s: the site | %s | |\n' "$backend" "$(du -sh "$tmp/site-$backend" | cut -f1)"
}

{
    echo "# history at scale"
    echo
    echo "$(machine_line); built at $(git -C "$src" rev-parse --short=12 HEAD). Wall and CPU (user + system) seconds of each command; the machine is shared, so the CPU time is the steadier figure."
    echo
    echo "| what | wall, s | CPU, s |"
    echo "|---|---|---|"
    say "sqlite"
    (cd "$src" && scale_rows sqlite "$tmp/scale.db")
    pg_dir=$(mktemp -d /tmp/cbpg.XXXXXX)
    if uri=$("$src/tests/history/pg_server.sh" start "$pg_dir" $$); then
        say "postgresql"
        (cd "$src" && scale_rows postgresql "$uri")
    else
        rmdir "$pg_dir" 2>/dev/null || true
        pg_dir=""
        echo "| postgresql: no server here (tests/history/pg_server.sh) | | |"
    fi
} >"$out/scale.md"
say "wrote $out/detection.md, detection-sweep.md, scale.md"
