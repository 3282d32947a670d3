#!/usr/bin/env bash
# plot_gnuplot.sh - plot a cubench result directory with gnuplot, no Python.
#
#   scripts/plot_gnuplot.sh RESULT_DIR OUT_DIR
#
# Reads RESULT_DIR/results.csv (schema version 1 or 2, docs/schema.md), prepares
# one data file per chart with awk (reports/gnuplot/prepare.awk), and draws
# each to PNG and SVG with the scripts in reports/gnuplot/:
#   OUT_DIR/gnuplot_vecadd.{dat,png,svg}              GB/s vs n per variant
#   OUT_DIR/gnuplot_matmul.{dat,png,svg}              TFLOP/s vs size per rung
#   OUT_DIR/gnuplot_transfers_<panel>.{dat,png,svg}   GB/s vs bytes per copy kind,
#       one per direction (h2d, d2h) or benchmark without one (bidir, d2d)
# A family absent from the run is skipped with a note on stderr.
# Exit status: 0 done, 2 bad arguments or input, 1 gnuplot failed.
set -euo pipefail

prog=$(basename "$0")
die() { echo "$prog: error: $*" >&2; exit 2; }

[[ $# -eq 2 ]] || die "usage: $prog RESULT_DIR OUT_DIR"
result_dir=$1
out_dir=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
gpdir=$here/../reports/gnuplot
results=$result_dir/results.csv

command -v gnuplot >/dev/null || die "gnuplot not found (apt-get install gnuplot-nox)"
[[ -d $result_dir ]] || die "$result_dir: not a directory"
[[ -f $results ]] || die "$results: missing (every result directory has results.csv)"
[[ -s $results ]] || die "$results: empty file (expected a header line)"
mkdir -p "$out_dir"

prepare() { awk -f "$gpdir/prepare.awk" "$@" "$results"; }

# Validate header and schema version once, before drawing anything.
prepare -v family=__none__ -v mode=data -v xaxis=n -v metric=gbps >/dev/null \
    || die "$results: not a schema version 1 or 2 results.csv (see the message above)"

# count_blocks FILE: number of data blocks (curves) prepare.awk wrote.
count_blocks() { grep -c '^"' "$1" || true; }

# linetypes FILE: each block's gnuplot line type, by reports/style.py's
# gnuplot_linetypes: CPU baselines (host...) 9-11, references (cublas...)
# 12-15, every other curve the next of the 8 palette colours
# (reports/gnuplot/style.gp; test_gnuplot.py checks the two rules agree).
linetypes() {
    awk -F'"' '/^"/ { t = $2
        if (t ~ /^host/) printf "%d ", 9 + (c++ % 3)
        else if (t ~ /^cublas/) printf "%d ", 12 + (r++ % 4)
        else printf "%d ", (n++ % 8) + 1 }' "$1"
}

plot() { # plot SCRIPT DATAFILE OUTBASE EXTRA_GNUPLOT_ASSIGNMENTS
    local script=$1 data=$2 outbase=$3 extra=$4 blocks
    blocks=$(count_blocks "$data")
    if [[ $blocks -eq 0 ]]; then
        rm -f "$data"
        return 1
    fi
    gnuplot -e "datafile='$data'; outbase='$outbase'; nblocks=$blocks; styles='$(linetypes "$data")'; gpdir='$gpdir'; $extra" \
        "$gpdir/$script" || { echo "$prog: gnuplot failed on $script" >&2; exit 1; }
    echo "$prog: wrote $outbase.png and $outbase.svg ($blocks curves)" >&2
}

peak_of() { # peak_of FAMILY UNIT [awk -v assignments...]: most common stated peak, 0 if none
    local family=$1 unit=$2 p
    shift 2
    p=$(prepare -v family="$family" -v mode=peak -v unit="$unit" "$@")
    echo "${p:-0}"
}

# Vector add: GB/s against n.
data=$out_dir/gnuplot_vecadd.dat
prepare -v family=vecadd -v xaxis=n -v metric=gbps >"$data"
plot vecadd.gp "$data" "$out_dir/gnuplot_vecadd" "peak=$(peak_of vecadd GB/s)" \
    || echo "$prog: no timed vecadd points, vecadd chart skipped" >&2

# Matmul: TFLOP/s against the size axis (size, else m).
data=$out_dir/gnuplot_matmul.dat
xname=$(awk -F, 'NR > 1 && $0 ~ /,matmul,/ { if ($0 ~ /[,;"]size=/) { print "size"; exit } if ($0 ~ /[,;"]m=/) { print "m"; exit } }' "$results")
prepare -v family=matmul -v xaxis="${xname:-size}" -v metric=tflops >"$data"
plot matmul.gp "$data" "$out_dir/gnuplot_matmul" "xname='${xname:-size}'" \
    || echo "$prog: no timed matmul points, matmul chart skipped" >&2

# Transfers: GB/s against bytes, one chart per direction, or per benchmark
# without a direction axis (bidir, d2d). The stream-overlap benchmark (a
# streams axis) is left to the Python report.
panels=$(prepare -v family=transfers -v mode=panels -v panel_axis=direction \
                 -v xaxis=bytes -v metric=gbps -v skip_axis=streams)
if [[ -z $panels ]]; then
    echo "$prog: no timed transfers points, transfer charts skipped" >&2
fi
for panel in $panels; do
    safe=${panel//[^A-Za-z0-9_.-]/_}
    sel=(-v panel_axis=direction -v panel="$panel" -v skip_axis=streams)
    data=$out_dir/gnuplot_transfers_$safe.dat
    prepare -v family=transfers -v xaxis=bytes -v metric=gbps -v curve=axes \
            "${sel[@]}" >"$data"
    plot transfers.gp "$data" "$out_dir/gnuplot_transfers_$safe" \
         "direction='$panel'; peak=$(peak_of transfers GB/s "${sel[@]}")" || true
done
