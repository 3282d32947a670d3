#!/usr/bin/env bash
# perf_gate.sh - the performance-regression gate for a self-hosted GPU runner.
#
# usage: scripts/perf_gate.sh BASE_BUILD_DIR CAND_BUILD_DIR OUT_DIR
#
# 1. Screening: run every line of the point list with both builds, each run a
#    separate `cubench run` process, in counterbalanced order: odd rounds run
#    BASE then CANDIDATE per line, even rounds CANDIDATE then BASE (A B B A
#    ...), so a linear drift of the machine (clocks, temperature) hits both
#    sides alike. Then one `cubench compare` takes each side's runs: with 3
#    or more runs per side the process is the unit of its test (the spread
#    of the runs is the between-process noise, docs/compare.md).
# 2. Confirmation: every point the screening calls slower is run again, in
#    fresh processes and the same order, and compared on its own. A
#    slowdown counts only when it is slower in both comparisons.
# 3. Report: OUT_DIR/summary.md (both markdown reports), appended to
#    $GITHUB_STEP_SUMMARY when that is set.
#
# Exit: 0 no confirmed slowdown; 1 at least one confirmed slowdown;
#       2 bad usage, a failed build product, a failed run or compare, or no
#         point compared at all (e.g. no GPU: CUDA points are skipped).
#
# Environment:
#   CUBENCH_GATE_POINTS          point list (default scripts/perf_gate_ci_points.txt)
#   CUBENCH_GATE_ROUNDS          screening rounds, each one A and one B run (default 6:
#                                6 processes per side; 8 points take about a minute)
#   CUBENCH_GATE_CONFIRM_ROUNDS  confirmation rounds (default 4)
#   CUBENCH_GATE_RUN_ARGS        options for every `cubench run`
#                                (default "--min-samples 30 --max-time-per-point 2")
#   CUBENCH_GATE_COMPARE_ARGS    options for `cubench compare` (e.g. "--delta 0.05")
#   CUBENCH_GATE_DEVICE          CUDA device ordinal (default 0)
#   CUBENCH_GATE_COMPARE_BIN     the cubench that compares (default: BASE's, so a
#                                change under test cannot relax its own gate)
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
}
die() {
    echo "perf_gate: $*" >&2
    exit 2
}

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    usage
    exit 0
fi
if [[ $# -ne 3 ]]; then
    echo "usage: $0 BASE_BUILD_DIR CAND_BUILD_DIR OUT_DIR (--help for more)" >&2
    exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
base_bin=$1/cubench
cand_bin=$2/cubench
out=$3
points=${CUBENCH_GATE_POINTS:-$here/perf_gate_ci_points.txt}
rounds=${CUBENCH_GATE_ROUNDS:-6}
confirm_rounds=${CUBENCH_GATE_CONFIRM_ROUNDS:-4}
device=${CUBENCH_GATE_DEVICE:-0}
compare_bin=${CUBENCH_GATE_COMPARE_BIN:-$base_bin}
read -r -a run_args <<<"${CUBENCH_GATE_RUN_ARGS---min-samples 30 --max-time-per-point 2}"
read -r -a compare_args <<<"${CUBENCH_GATE_COMPARE_ARGS-}"

for b in "$base_bin" "$cand_bin" "$compare_bin"; do
    [[ -x $b ]] || die "$b: not an executable (build both revisions first)"
done
[[ -r $points ]] || die "$points: cannot read the point list"
[[ $rounds =~ ^[1-9][0-9]*$ && $confirm_rounds =~ ^[1-9][0-9]*$ ]] ||
    die "CUBENCH_GATE_ROUNDS and CUBENCH_GATE_CONFIRM_ROUNDS must be positive integers"
[[ -e $out && -n $(ls -A "$out" 2>/dev/null) ]] && die "$out: exists and is not empty"
mkdir -p "$out"

# Check the point list: a selection and --axis options only (see the list).
check_points() {
    local file=$1 n=0 line words i
    while IFS= read -r line || [[ -n $line ]]; do
        line=${line%%#*}
        read -r -a words <<<"$line"
        [[ ${#words[@]} -eq 0 ]] && continue
        n=$((n + 1))
        for ((i = 0; i < ${#words[@]}; i++)); do
            case ${words[i]} in
            --axis) i=$((i + 1)) ;;
            --axis=*) ;;
            -*) die "$file: '${words[i]}': only --axis belongs in a point list (put run options in CUBENCH_GATE_RUN_ARGS)" ;;
            esac
        done
    done <"$file"
    [[ $n -gt 0 ]] || die "$file: no points"
}

# run_one BIN DIR WORDS... : one `cubench run` process writing DIR.
run_one() {
    local bin=$1 dir=$2 rc=0
    shift 2
    echo "perf_gate: $bin run $* --out $dir" >&2
    mkdir -p "$(dirname "$dir")"
    "$bin" run "$@" --out "$dir" --device "$device" --quiet "${run_args[@]}" || rc=$?
    case $rc in
    0) ;;
    1) echo "perf_gate: warning: a point failed in $dir; compare lists it as missing or new" >&2 ;;
    *) die "cubench run exited $rc (see above): $bin run $* --out $dir" ;;
    esac
}

# run_rounds PHASE LIST ROUNDS : every line of LIST, per round in A B or B A order.
run_rounds() {
    local phase=$1 list=$2 n_rounds=$3 r line words l side
    for ((r = 1; r <= n_rounds; r++)); do
        l=0
        while IFS= read -r line || [[ -n $line ]]; do
            line=${line%%#*}
            read -r -a words <<<"$line"
            [[ ${#words[@]} -eq 0 ]] && continue
            l=$((l + 1))
            local order=(base cand)
            ((r % 2 == 0)) && order=(cand base)
            for side in "${order[@]}"; do
                local bin=$base_bin
                [[ $side == cand ]] && bin=$cand_bin
                run_one "$bin" "$out/$phase/$side/r$r-l$l" "${words[@]}"
            done
        done <"$list"
    done
}

# compare_phase PHASE TITLE : each side's runs; sets compare_rc.
compare_phase() {
    local phase=$1 title=$2 d args=()
    for d in "$out/$phase"/base/*/; do args+=(--base "${d%/}"); done
    for d in "$out/$phase"/cand/*/; do args+=(--new "${d%/}"); done
    compare_rc=0
    "$compare_bin" compare "${args[@]}" --title "$title" --markdown "$out/$phase.md" \
        --csv "$out/$phase.csv" "${compare_args[@]}" || compare_rc=$?
    if [[ $compare_rc -ge 2 && -f $out/$phase.csv && $(timed_points "$out/$phase.csv") -eq 0 ]]; then
        die "no point was timed by both builds (no GPU? see $out/$phase.md)"
    fi
    [[ $compare_rc -le 1 ]] || die "cubench compare exited $compare_rc for the $phase phase"
}

# slower_points CSV : "BENCH --axis k=v ..." for every slower row. Benchmark
# names and axes never hold quotes or commas (axis values are numbers or
# words), so the first columns split plainly even when a later note is quoted.
slower_points() {
    awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["verdict"] == "slower" {
            b = $col["benchmark"]; a = $col["axes"]
            if (b ~ /"/ || a ~ /"/) { print "quoted identity: " $0 > "/dev/stderr"; exit 3 }
            line = b; n = split(a, kv, ";")
            for (i = 1; i <= n; i++) if (kv[i] != "") line = line " --axis " kv[i]
            print line
        }' "$1"
}

# timed_points CSV : how many points had times on both sides.
timed_points() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
             $col["verdict"] != "missing" && $col["verdict"] != "new" &&
             $col["verdict"] != "untimed" { n++ }
             END { print n + 0 }' "$1"
}

check_points "$points"
run_rounds screen "$points" "$rounds"
compare_phase screen "perf gate: screening"
screen_rc=$compare_rc
[[ $(timed_points "$out/screen.csv") -gt 0 ]] ||
    die "no point was timed by both builds (no GPU? see $out/screen.md)"

confirmed=0
if [[ $screen_rc -eq 1 ]]; then
    slower_points "$out/screen.csv" >"$out/confirm_points.txt" || die "cannot read $out/screen.csv"
    echo "perf_gate: confirming $(wc -l <"$out/confirm_points.txt") slower point(s)" >&2
    run_rounds confirm "$out/confirm_points.txt" "$confirm_rounds"
    compare_phase confirm "perf gate: confirmation of the slower points"
    # Only screened-slower points were re-run, so slower here is slower in both.
    if [[ $compare_rc -eq 1 ]]; then
        confirmed=$(slower_points "$out/confirm.csv" | wc -l)
    fi
fi

{
    if [[ $confirmed -gt 0 ]]; then
        echo "## cubench perf gate: FAIL, $confirmed confirmed slowdown(s)"
    elif [[ $screen_rc -eq 1 ]]; then
        echo "## cubench perf gate: pass (slowdowns in screening were not confirmed)"
    else
        echo "## cubench perf gate: pass"
    fi
    echo
    cat "$out/screen.md"
    if [[ -f $out/confirm.md ]]; then
        echo
        cat "$out/confirm.md"
    fi
} >"$out/summary.md"
if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
    cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"
fi
echo "perf_gate: $(head -1 "$out/summary.md" | sed 's/^## //'); report in $out/summary.md" >&2
[[ $confirmed -gt 0 ]] && exit 1
exit 0
