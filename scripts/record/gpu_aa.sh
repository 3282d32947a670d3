#!/usr/bin/env bash
# gpu_aa.sh - does `cubench compare` keep its promises on a real GPU?
#
# Run on a machine with an NVIDIA GPU, from the repository root (results
# go to $OUT, default ./gpu-out):
#     scripts/record/gpu_aa.sh
# It builds cubench (release preset), then, with the default settings of
# `cubench run` plus --replicates R:
#   1. one warm-up process of the point selection at --replicates 1 (its wall
#      time is the cost of one round, for the replicate cost below);
#   2. P independent A/A pairs: 2P back-to-back processes of one build over
#      the selection (>= 200 vecadd points: n = 2^10 .. 2^26 including the
#      bimodal 2^24, launch-bound small n, and vecadd/host);
#   3. compare per pair (exit code and counts; 0 slower and 0 faster expected);
#   4. planted slowdowns on real noise: a copy of each pair's B with every
#      time x 1.05 and x 1.10 (a known slower variant under B's identity, no
#      knob in the product), compared against A: the share of points whose
#      reported MDE <= 5% that are flagged slower (>= 95% expected), and every
#      point whose MDE <= 10% at +10%;
#   5. coverage: the share of A/A points whose compare CI holds 1 (99% and
#      90% CIs), and the share whose results.csv 95% CI of the median (one
#      process's) holds the other process's median;
#   6. a calibration recorded from pairs 1-2 (--calibrate: 4 runs) applied to
#      the other pairs, and all A runs against all B runs (the runs as the
#      unit);
# and prints a summary (also $OUT/summary.txt). Everything else is in
# $OUT/gpu_aa.tar.xz (runs, reports, logs). Budget: about 6 minutes on an
# H200 with the defaults (each process of the selection takes ~25 s at
# --replicates 5; the script prints every process's wall time).
#
# Environment:
#   CB_AA_PAIRS       A/A pairs (default 5)
#   CB_AA_REPLICATES  --replicates of every A/A process (default 5: what this
#                     script recommends as the default of `cubench run`)
#   CB_AA_NMAX        largest vector length, as an axis value (default 2^24: 200
#                     points; 2^26 gives 225)
#   CB_AA_BUDGET_S    no new pair starts once it would end past this many
#                     seconds from the start (default 420; the pairs run are
#                     reported)
#   CB_AA_SUITE=R,..  also time the default suite (`cubench run`) once per
#                     --replicates value listed, e.g. 1,3 (about 140 s at 1:
#                     a separate device call)
#   CB_AA_NO_BUILD=1  use the cubench there is (CB_AA_BIN, default ./build/cubench)
#
# jansson: cubench compare needs libjansson-dev. Where the GPU machine lacks
# it (no network there), unpack it here first and carry it:
#     mkdir -p .gpu-libs/jansson && (cd .gpu-libs && apt-get download libjansson-dev libjansson4 &&
#         for d in libjansson*.deb; do dpkg -x "$d" jansson; done)
# then carry that folder to the GPU machine; this script points
# CMake at it (the static libjansson.a is linked, so nothing else is needed
# at run time).
#
# What proves it works: "A/A pairs: P of P exit 0, 0 slower, 0 faster" and
# the planted lines at or above their targets in the summary.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
PAIRS=${CB_AA_PAIRS:-5}
REPS=${CB_AA_REPLICATES:-5}
NMAX=${CB_AA_NMAX:-2^24}
BUDGET=${CB_AA_BUDGET_S:-420}
W=$(mktemp -d /tmp/gpu_aa.XXXXXX)
BIN=${CB_AA_BIN:-$PWD/build/cubench}
mkdir -p "$OUT"
. scripts/record/lib.sh # run_pairs; its own log below (to stderr)
log() { printf '== %s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$W/log.txt" >&2; }
started=$(date +%s)

# The selection: 200 points (n = 2^10 .. 2^24), one process each time.
SEL=(vecadd/thread_per_elem vecadd/float4_per_thread vecadd/grid_stride vecadd/grid_stride_float4
     vecadd/host --axis "n=2^10:$NMAX:x4" --axis block=256,1024 --axis grid=auto,32sm)

build() {
    local extra=()
    if ! pkg-config --exists jansson 2>/dev/null && [[ -d .gpu-libs/jansson/usr ]]; then
        extra=(-DCMAKE_PREFIX_PATH="$PWD/.gpu-libs/jansson/usr")
    fi
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,ecc.mode.current \
        --format=csv >"$W/nvidia-smi.csv" 2>&1
    cmake --preset release "${extra[@]}" >"$W/cmake.log" 2>&1 &&
        cmake --build --preset release -j "$(nproc)" --target cubench >"$W/build.log" 2>&1
}

# run_one NAME REPLICATES : one process over the selection; logs its wall time.
run_one() {
    local t0 t1 rc=0
    t0=$(date +%s.%N)
    "$BIN" run "${SEL[@]}" --replicates "$2" --out "$W/runs/$1" --quiet >"$W/runs/$1.log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    local sec
    sec=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    echo "$1 $2 $sec $rc" >>"$W/times.txt"
    log "run $1 (--replicates $2): rc=$rc, $sec s"
}

# scaled SRC DST FACTOR : a copy of a run with every time x FACTOR.
scaled() {
    mkdir -p "$2"
    cp "$1/meta.json" "$2/"
    awk -F, -v OFS=, -v f="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
        { $c["time_s"] = sprintf("%.9g", $c["time_s"] * f); if ($c["cupti_s"] != "") $c["cupti_s"] = sprintf("%.9g", $c["cupti_s"] * f); print }' \
        "$1/samples.csv" >"$2/samples.csv"
    awk -F, -v OFS=, -v f="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
        { if ($c["median_s"] != "") $c["median_s"] = sprintf("%.9g", $c["median_s"] * f); print }' \
        "$1/results.csv" >"$2/results.csv"
}

# cmp NAME ARGS... : compare, keeping the CSV, markdown and exit code.
cmp() {
    local name=$1 rc=0
    shift
    # options first: everything after a `--` among the arguments is a NEW run
    "$BIN" compare --csv "$W/cmp/$name.csv" --markdown "$W/cmp/$name.md" "$@" 2>"$W/cmp/$name.err" || rc=$?
    echo "$name $rc" >>"$W/cmp/rc.txt"
}

mkdir -p "$W/runs" "$W/cmp"
if [[ ${CB_AA_NO_BUILD:-0} != 1 ]]; then
    log "build"
    build || { tail -20 "$W/build.log" "$W/cmake.log"; echo "gpu_aa: build failed" >&2; exit 2; }
fi
[[ -x $BIN ]] || { echo "gpu_aa: $BIN missing" >&2; exit 2; }
"$BIN" run "${SEL[@]}" --dry-run >"$W/points.txt" 2>&1
log "selection: $(grep -c . "$W/points.txt") lines of --dry-run output"

run_one warmup-r1 1
pair_side() { run_one "$1" "$REPS"; }
run_pairs pair_side
log "runs done after $(($(date +%s) - started)) s"

for ((k = 1; k <= PAIRS; k++)); do
    a=$W/runs/A$k b=$W/runs/B$k
    cmp "aa$k" "$a" "$b"
    cmp "aa$k-a10" --alpha 0.1 "$a" "$b"
    scaled "$b" "$W/runs/B$k-x1.05" 1.05
    scaled "$b" "$W/runs/B$k-x1.10" 1.10
    cmp "plant5-$k" "$a" "$W/runs/B$k-x1.05"
    cmp "plant10-$k" "$a" "$W/runs/B$k-x1.10"
done
"$BIN" compare --calibrate "$W/runs/A1" "$W/runs/B1" "$W/runs/A2" "$W/runs/B2" \
    -o "$W/cmp/calibration.csv" 2>"$W/cmp/calibrate.err"
for ((k = 3; k <= PAIRS; k++)); do
    cmp "aa$k-cal" --calibration "$W/cmp/calibration.csv" "$W/runs/A$k" "$W/runs/B$k"
    cmp "plant5-$k-cal" --calibration "$W/cmp/calibration.csv" "$W/runs/A$k" "$W/runs/B$k-x1.05"
done
as=() bs=()
for ((k = 1; k <= PAIRS; k++)); do as+=("$W/runs/A$k"); bs+=("$W/runs/B$k"); done
cmp all-runs "${as[@]}" -- "${bs[@]}"
cmp all-runs-plant5 "${as[@]}" -- "${bs[@]/%/-x1.05}"

python3 - "$W" "$PAIRS" "$REPS" >"$OUT/summary.txt" <<'PY'
import csv, os, sys
W, P, R = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def rows(name):
    with open(f"{W}/cmp/{name}.csv", newline="") as f:
        return list(csv.DictReader(f))
rc = dict(line.split() for line in open(f"{W}/cmp/rc.txt"))
def counts(name):
    r = rows(name)
    c = {}
    for x in r:
        c[x["verdict"]] = c.get(x["verdict"], 0) + 1
    return r, c
def fmt(c):
    return ", ".join(f"{v} {k}" for k, v in sorted(c.items(), key=lambda kv: -kv[1]))
print(f"gpu_aa: {P} A/A pairs at --replicates {R}")
times = [l.split() for l in open(f"{W}/times.txt")]
for name, reps, sec, code in times:
    print(f"  process {name:10s} replicates {reps}: {float(sec):6.1f} s, exit {code}")
r1 = [float(t[2]) for t in times if t[1] == "1"]
rr = [float(t[2]) for t in times if t[1] == str(R)]
if r1 and rr:
    print(f"  cost of --replicates {R}: {sum(rr)/len(rr):.1f} s per process vs {r1[0]:.1f} s at 1 "
          f"(x{sum(rr)/len(rr)/r1[0]:.2f}; the default suite, 140.6 s at 1, would take about "
          f"{140.6*sum(rr)/len(rr)/r1[0]:.0f} s if it scaled alike)")
alarms = 0
ok_pairs = 0
for k in range(1, P + 1):
    r, c = counts(f"aa{k}")
    bad = c.get("slower", 0) + c.get("faster", 0)
    alarms += bad > 0
    ok_pairs += rc[f"aa{k}"] == "0" and bad == 0
    print(f"  A/A pair {k}: exit {rc[f'aa{k}']}: {fmt(c)}")
    for x in r:
        if x["verdict"] in ("slower", "faster"):
            print(f"      {x['verdict']} {x['benchmark']} {x['axes']} ratio {x['ratio']} CI {x['ci_lo']}-{x['ci_hi']} units {x['base_units']}/{x['new_units']}")
print(f"A/A pairs: {ok_pairs} of {P} exit 0 with 0 slower and 0 faster")
for level, suffix in (("99%", ""), ("90%", "-a10")):
    n = cov = 0
    for k in range(1, P + 1):
        for x in rows(f"aa{k}{suffix}"):
            if x["ci_lo"]:
                n += 1
                cov += float(x["ci_lo"]) <= 1.0 <= float(x["ci_hi"])
    print(f"coverage of 1 by the compare {level} CI over the A/A points: {cov}/{n} = {cov/max(n,1):.4f}")
n = cov = 0
for k in range(1, P + 1):
    def res(d):
        with open(f"{W}/runs/{d}/results.csv", newline="") as f:
            return {(x["benchmark"], x["axes"]): x for x in csv.DictReader(f) if x["status"] in ("ok", "noisy")}
    a, b = res(f"A{k}"), res(f"B{k}")
    for key, x in a.items():
        if key in b and x["ci_lo_s"] and x["ci_hi_s"]:
            n += 1
            cov += float(x["ci_lo_s"]) <= float(b[key]["median_s"]) <= float(x["ci_hi_s"])
print(f"results.csv 95% CI of A holding B's median (one process's CI vs a fresh process): {cov}/{n} = {cov/max(n,1):.4f}")
for pct, target in ((5, 0.95), (10, 1.0)):
    tot = hit = 0
    misses = []
    for k in range(1, P + 1):
        for x in rows(f"plant{pct}-{k}"):
            if x["mde"] and float(x["mde"]) <= pct / 100:
                tot += 1
                if x["verdict"] == "slower":
                    hit += 1
                else:
                    misses.append(f"pair {k} {x['benchmark']} {x['axes']} mde {float(x['mde']):.3f} ratio {x['ratio']} {x['verdict']}: {x['note']}")
    share = hit / max(tot, 1)
    print(f"planted +{pct}%: flagged at {hit} of {tot} points with MDE <= {pct}% ({share:.4f}; target >= {target}) -> {'PASS' if share >= target else 'FAIL'}")
    for m in misses[:10]:
        print("      miss:", m)
    mdes = sorted(float(x["mde"]) for x in rows(f"plant{pct}-1") if x["mde"])
    if mdes:
        print(f"    pair 1 MDE quartiles: {mdes[len(mdes)//4]:.3f} {mdes[len(mdes)//2]:.3f} {mdes[3*len(mdes)//4]:.3f}; points <= 3%: {sum(m <= 0.03 for m in mdes)}, <= 5%: {sum(m <= 0.05 for m in mdes)}, <= 10%: {sum(m <= 0.10 for m in mdes)} of {len(mdes)}")
print("calibration from pairs 1-2 (between-run spread the rounds do not show):")
cal = []
if os.path.exists(f"{W}/cmp/calibration.csv"):
    with open(f"{W}/cmp/calibration.csv", newline="") as f:
        cal = list(csv.DictReader(f))
for x in sorted(cal, key=lambda x: -float(x["between_run_sd"]))[:8]:
    print(f"    {x['benchmark']:28s} bucket {x['bucket']:>3s} ({x['time_lo_s'] or '*'}..{x['time_hi_s'] or '*'} s): {100*float(x['between_run_sd']):.2f}% over {x['points']} points, df {x['df']}")
for k in range(3, P + 1):
    _, c = counts(f"aa{k}-cal")
    _, c5 = counts(f"plant5-{k}-cal")
    print(f"  with the calibration: A/A pair {k}: exit {rc[f'aa{k}-cal']}: {fmt(c)}; planted +5%: {c5.get('slower', 0)} slower")
_, c = counts("all-runs")
_, c5 = counts("all-runs-plant5")
print(f"all {P} A runs vs all {P} B runs (the runs as the unit): exit {rc['all-runs']}: {fmt(c)}; planted +5%: {fmt(c5)}")
PY
if [[ -n ${CB_AA_SUITE:-} ]]; then
    IFS=, read -r -a suite_reps <<<"$CB_AA_SUITE"
    for r in "${suite_reps[@]}"; do
        t0=$(date +%s)
        "$BIN" run --replicates "$r" --out "$W/runs/suite-r$r" --quiet >"$W/runs/suite-r$r.log" 2>&1
        echo "default suite at --replicates $r: exit $?, $(($(date +%s) - t0)) s" >>"$OUT/summary.txt"
    done
fi
cat "$OUT/summary.txt"
log "total $(($(date +%s) - started)) s"
cp "$W/log.txt" "$W/times.txt" "$OUT/" 2>/dev/null
tar -C "$W" -cJf "$OUT/gpu_aa.tar.xz" . && ls -l "$OUT"
size=$(stat -c %s "$OUT/gpu_aa.tar.xz")
if ((size > 15 * 1024 * 1024)); then
    # keep the archive small (16 MiB per file): samples of pair 1 only
    tar -C "$W" -cJf "$OUT/gpu_aa.tar.xz" --exclude='runs/[AB][2-9]*/samples.csv' --exclude='runs/*-x1.*' . &&
        echo "gpu_aa: the tarball holds samples.csv of pair 1 only (size)" >&2
fi
rm -rf "$W"
