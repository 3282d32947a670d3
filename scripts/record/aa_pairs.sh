#!/usr/bin/env bash
# aa_pairs.sh [OUT] - A/A pairs of default runs over every kind of point:
# does `cubench compare` stay quiet between two processes of one build, and
# what can one run per side see?
#
# Run on a machine with an NVIDIA GPU, from the repository root (results go
# to OUT, or $OUT, default ./gpu-out):
#     scripts/record/aa_pairs.sh /tmp/aa
# It builds cubench (scripts/build.sh native), then records P A/A pairs
# (default 5). Each side of a pair is three back-to-back processes at the
# default settings of `cubench run` (no --replicates, no --quick):
#   vec  `cubench run` of vecadd (4 GPU variants, n = 2^10 .. 2^26 with the
#        launch-bound sizes and the bimodal 2^24) and vecadd/host, and the
#        copies: memcpy_async in every memory kind and direction (1 MiB,
#        4 MiB, 64 MiB), memcpy_sync, bidir, d2d, zero_copy;
#   mm   `cubench run` of the FP32 ladder with cuBLAS FP32 and the CPU
#        baselines at m = 128, 256, 512;
#   py   `python3 -m cubench run` of two Python frameworks (torch, cupy:
#        add, GEMM, copies), numpy's add, and the tensor-core rungs that
#        reach the power cap (wgmma_ws BF16 and TF32, cuBLAS BF16) at 1024^3
#        and 8192^3.
# About 180 points per side (123 + 30 + 26). The runs alternate A B per pair; a side's
# three directories are one side of `cubench compare` (each point is in one
# of them). Then:
#   1. compare per pair: exit code, verdict counts (0 slower, 0 faster
#      expected), throttled points, and what one run per side can see: the
#      MDE by kind and, for device kernels, by time class (< 16 us,
#      16-65 us, > 65 us);
#   2. the coverage of the 99% CIs of the ratio over the A/A points, by kind;
#   3. planted +5% and +10% (a copy of B with every time scaled): the share
#      of points with MDE <= 5% / 10% flagged slower;
#   4. a calibration from the runs of pairs 1-2 (4 processes per point)
#      applied to the other pairs;
#   5. the runner's throttle handling at the 8192^3 tensor-core points:
#      samples set aside, seconds waited (results.csv throttled_samples,
#      throttle_wait_s), and the throttled verdicts;
#   6. scripts/record/compare_defaults.py with the new runs as a set, so the
#      built-in defaults can be re-derived from them;
# and prints a summary (also OUT/summary.txt). Runs, reports and logs are
# in OUT/aa_pairs.tar.xz. Time on an H200: a side's three processes took
# 40-60 s (vec 19-31 s, mm 2-5 s, py 17-25 s), a pair about 100 s, so five
# pairs about 8.5 minutes, and the analysis about 1 minute there (5.5 on a
# 2-core machine: record with CB_AA_RECORD_ONLY=1 and analyse elsewhere with
# CB_AA_FROM when a GPU's time is short). The script prints every process's
# wall time and starts no pair that would end past CB_AA_BUDGET_S.
#
# Environment:
#   CB_AA_PAIRS      A/A pairs (default 5)
#   CB_AA_BUDGET_S   no new pair starts past this many seconds (default 560)
#   CB_AA_PYTHON     the Python with torch and cupy (default python3)
#   CB_AA_NO_BUILD=1 use the build there is (CB_AA_BUILD, default build-native/)
#   CB_AA_RECORD_ONLY=1 record the pairs, pack OUT/aa_runs.tar.xz, analyse nothing
#   CB_AA_REDERIVE=0 skip step 6 (runs already among tests/data's sets would
#                    count twice)
#   CB_AA_FROM=DIR   record nothing: analyse DIR/runs/A1, B1, ... (the runs/
#                    folders of earlier aa_pairs.tar.xz, pairs renumbered into
#                    one folder) with DIR/times.txt if there is one
# jansson: where the GPU machine lacks libjansson-dev, unpack it into
# .gpu-libs/jansson first (see gpu_aa.sh); this script points CMake at it.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-${OUT:-$PWD/gpu-out}}
PAIRS=${CB_AA_PAIRS:-5}
BUDGET=${CB_AA_BUDGET_S:-560}
PY=${CB_AA_PYTHON:-python3}
FROM=${CB_AA_FROM:-}
BUILD=${CB_AA_BUILD:-$PWD/build-native}
BIN=$BUILD/cubench
W=$(mktemp -d /tmp/aa_pairs.XXXXXX)
mkdir -p "$OUT" "$W/runs" "$W/cmp"
. scripts/record/lib.sh # use_unpacked_jansson; its own log below (to stderr)
log() { printf '== %s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$W/log.txt" >&2; }
started=$(date +%s)

VEC=(vecadd/thread_per_elem vecadd/float4_per_thread vecadd/grid_stride vecadd/grid_stride_float4
     vecadd/host transfers/memcpy_async transfers/memcpy_sync transfers/bidir transfers/d2d
     transfers/zero_copy
     --axis "n=2^10:2^26:x4" --axis block=256 --axis grid=auto --axis ilp=1,4 --axis hint=none
     --axis memory=pageable,pinned,registered,wc --axis direction=h2d,d2h
     --axis "bytes=1Mi,4Mi,64Mi")
MM=(matmul/naive_coalesced matmul/smem_tiled matmul/regblock_1d matmul/regblock_2d
    matmul/vectorized matmul/warptiled matmul/pipelined matmul/cublas_fp32 matmul/host_blocked
    matmul/host_cblas --axis m=128,256,512 --axis tile=16)
PYSEL=(torch/add cupy/add numpy/add torch/matmul_fp32 torch/matmul_bf16 cupy/matmul_fp32
       torch/copy matmul_tc/wgmma_ws_bf16 matmul_tc/wgmma_ws_tf32 matmul/cublas_bf16
       --axis "*/add:n=2^12,2^16,2^20,2^24" --axis m=1024 --axis "matmul*:m=1024,8192"
       --axis "torch/matmul_bf16:m=1024,8192"
       --axis direction=h2d,d2h --axis memory=pageable,pinned --axis bytes=16Mi)
# The axes are scoped: a bare n= would reach the GEMMs' n axis too (8192 x
# 2^28 operands), and 8192^3 is kept for the GEMMs that reach the power cap.

build() {
    use_unpacked_jansson
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
        --format=csv >"$W/nvidia-smi.csv" 2>&1
    scripts/build.sh native >"$W/build.log" 2>&1
}

# side NAME : the three processes of one side into runs/NAME/{vec,mm,py}.
side() {
    local d=$W/runs/$1 t0 t1 rc
    mkdir -p "$d"
    for part in vec mm py; do
        t0=$(date +%s.%N)
        rc=0
        case $part in
        vec) "$BIN" run "${VEC[@]}" --out "$d/vec" --quiet >"$d/vec.log" 2>&1 || rc=$? ;;
        mm) "$BIN" run "${MM[@]}" --out "$d/mm" --quiet >"$d/mm.log" 2>&1 || rc=$? ;;
        py) CUBENCH_LIB=$BUILD PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} \
                "$PY" -m cubench run "${PYSEL[@]}" --out "$d/py" --quiet >"$d/py.log" 2>&1 || rc=$? ;;
        esac
        t1=$(date +%s.%N)
        echo "$1/$part $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') $rc" >>"$W/times.txt"
        log "run $1/$part: exit $rc"
    done
}

# dirs NAME [SUFFIX] : the side's directories as --base or --new arguments.
dirs() {
    local flag=$1 name=$2 part
    for part in vec mm py; do
        [[ -d $W/runs/$name/$part${3:-} ]] && printf '%s\n%s\n' "$flag" "$W/runs/$name/$part${3:-}"
    done
}

# part_dirs K... : the part directories both sides of pairs K wrote.
part_dirs() {
    local k s part
    for k in "$@"; do
        for s in A B; do
            for part in vec mm py; do
                [[ -d $W/runs/$s$k/$part ]] && printf '%s\n' "$W/runs/$s$k/$part"
            done
        done
    done
}

# scaled SRC DST FACTOR : a copy of a run with every time x FACTOR.
scaled() {
    mkdir -p "$2"
    cp "$1/meta.json" "$2/" 2>/dev/null
    [[ -f $1/python.json ]] && cp "$1/python.json" "$2/"
    "$PY" - "$1" "$2" "$3" <<'PY'
import csv, lzma, os, sys
src, dst, f = sys.argv[1], sys.argv[2], float(sys.argv[3])
for name, cols in (("samples.csv", ("time_s", "cupti_s")), ("results.csv", ("median_s",))):
    p = os.path.join(src, name)
    text = open(p).read() if os.path.exists(p) else lzma.open(p + ".xz", "rt").read()
    rows = list(csv.DictReader(text.splitlines()))
    for r in rows:
        for c in cols:
            if r.get(c):
                r[c] = "%.9g" % (float(r[c]) * f)
    with open(os.path.join(dst, name), "w", newline="") as out:
        w = csv.DictWriter(out, fieldnames=list(rows[0].keys()) if rows else ["benchmark"])
        w.writeheader()
        w.writerows(rows)
PY
}

# cmp NAME ARGS... : compare, keeping the CSV, markdown, stderr and exit code.
cmp() {
    local name=$1 rc=0
    shift
    "$BIN" compare --csv "$W/cmp/$name.csv" --markdown "$W/cmp/$name.md" "$@" 2>"$W/cmp/$name.err" || rc=$?
    echo "$name $rc" >>"$W/cmp/rc.txt"
}

if [[ -n $FROM ]]; then
    # analyse runs recorded earlier (FROM/runs/A1, B1, ...: pairs from
    # several sessions gathered in one folder) instead of recording
    cp -r "$FROM/runs/." "$W/runs/" || exit 2
    PAIRS=$(find "$W/runs" -maxdepth 1 -name 'B[0-9]*' | wc -l)
    for ((k = 1; k <= PAIRS; k++)); do
        [[ -d $W/runs/A$k && -d $W/runs/B$k ]] || { echo "aa_pairs: $FROM/runs lacks A$k or B$k" >&2; exit 2; }
    done
    [[ -f $FROM/times.txt ]] && cp "$FROM/times.txt" "$W/times.txt"
    CB_AA_NO_BUILD=1
fi
if [[ ${CB_AA_NO_BUILD:-0} != 1 ]]; then
    log "build"
    build || { tail -20 "$W/build.log"; echo "aa_pairs: build failed" >&2; exit 2; }
fi
[[ -x $BIN ]] || { echo "aa_pairs: $BIN missing" >&2; exit 2; }
"$BIN" run "${VEC[@]}" --dry-run >"$W/points-vec.txt" 2>&1
"$BIN" run "${MM[@]}" --dry-run >"$W/points-mm.txt" 2>&1
log "selection: $(grep -c ' ' "$W/points-vec.txt") + $(grep -c ' ' "$W/points-mm.txt") C points (--dry-run lines)"

# runs analysed elsewhere (CB_AA_FROM) count as all PAIRS done
[[ -z $FROM ]] && run_pairs side
log "runs done after $(($(date +%s) - started)) s"
if [[ ${CB_AA_RECORD_ONLY:-0} == 1 ]]; then
    tar -C "$W" -cJf "$OUT/aa_runs.tar.xz" runs log.txt times.txt nvidia-smi.csv points-vec.txt points-mm.txt 2>/dev/null
    log "recorded $PAIRS pairs: $OUT/aa_runs.tar.xz (analyse with CB_AA_FROM)"
    rm -rf "$W"
    exit 0
fi

for ((k = 1; k <= PAIRS; k++)); do
    mapfile -t base < <(dirs --base "A$k")
    mapfile -t new < <(dirs --new "B$k")
    if ((${#base[@]} == 0 || ${#new[@]} == 0)); then
        log "pair $k: a side wrote no run directory (see runs/A$k/*.log, runs/B$k/*.log)"
        continue
    fi
    cmp "aa$k" "${base[@]}" "${new[@]}"
    for f in 1.05 1.10; do
        for part in vec mm py; do
            [[ -d $W/runs/B$k/$part ]] && scaled "$W/runs/B$k/$part" "$W/runs/B$k/$part-x$f" "$f"
        done
        mapfile -t planted < <(dirs --new "B$k" "-x$f")
        cmp "plant$f-$k" "${base[@]}" "${planted[@]}"
    done
done
if ((PAIRS >= 3)); then
    mapfile -t cal < <(part_dirs 1 2)
    # one set per process group: --calibrate takes the runs of each part
    "$BIN" compare --calibrate "${cal[@]}" -o "$W/cmp/calibration.csv" 2>"$W/cmp/calibrate.err"
    for ((k = 3; k <= PAIRS; k++)); do
        mapfile -t base < <(dirs --base "A$k")
        mapfile -t new < <(dirs --new "B$k")
        cmp "aa$k-cal" --calibration "$W/cmp/calibration.csv" "${base[@]}" "${new[@]}"
        mapfile -t planted < <(dirs --new "B$k" "-x1.05")
        cmp "plant1.05-$k-cal" --calibration "$W/cmp/calibration.csv" "${base[@]}" "${planted[@]}"
    done
fi
mapfile -t set_args < <(part_dirs $(seq 1 "$PAIRS"))
if [[ ${CB_AA_REDERIVE:-1} == 1 ]]; then
    "$PY" scripts/record/compare_defaults.py --set aa-pairs "${set_args[@]}" >"$W/defaults.txt" 2>&1
else
    echo "(not re-derived: CB_AA_REDERIVE=0, e.g. these runs are in tests/data already)" >"$W/defaults.txt"
fi

"$PY" - "$W" "$PAIRS" >"$OUT/summary.txt" <<'PY'
import csv, math, os, statistics, sys
W, P = sys.argv[1], int(sys.argv[2])
def rows(name):
    p = f"{W}/cmp/{name}.csv"
    if not os.path.exists(p):
        return []
    with open(p, newline="") as f:
        return list(csv.DictReader(f))
rc = dict(l.split() for l in open(f"{W}/cmp/rc.txt"))
def fmt(c):
    return ", ".join(f"{v} {k}" for k, v in sorted(c.items(), key=lambda kv: -kv[1]))
print(f"aa_pairs: {P} A/A pairs, three processes per side at the defaults")
for l in open(f"{W}/times.txt"):
    name, sec, code = l.split()
    print(f"  process {name:8s} {float(sec):6.1f} s, exit {code}")
ok = 0
points = {}
for k in range(1, P + 1):
    r = rows(f"aa{k}")
    c = {}
    for x in r:
        c[x["verdict"]] = c.get(x["verdict"], 0) + 1
    bad = c.get("slower", 0) + c.get("faster", 0)
    ok += rc.get(f"aa{k}") == "0" and bad == 0
    print(f"  A/A pair {k}: exit {rc.get(f'aa{k}')}: {len(r)} points: {fmt(c)}")
    for x in r:
        if x["verdict"] in ("slower", "faster"):
            print(f"      {x['verdict']} {x['kind']} {x['benchmark']} {x['axes']} ratio {x['ratio']} "
                  f"CI {x['ci_lo']}-{x['ci_hi']} units {x['base_units']}/{x['new_units']} {x['note']}")
    points[k] = r
print(f"A/A pairs: {ok} of {P} exit 0 with 0 slower and 0 faster")
def cls(x):
    if x["kind"] != "device":
        return x["kind"]
    m = float(x["base_median_s"])
    return "device <16us" if m < 16.384e-6 else "device 16-65us" if m < 65.536e-6 else "device >65us"
cov, mde, untested, thr = {}, {}, {}, {}
for r in points.values():
    for x in r:
        k = cls(x) if x["base_median_s"] else x["kind"]
        if x["widening"] == "unknown":
            untested[k] = untested.get(k, 0) + 1
        if x["verdict"] == "throttled":
            thr[k] = thr.get(k, 0) + 1
        # a throttled point's interval is no claim (its verdict is its
        # own): coverage and MDE count the points compare tests
        if x["ci_lo"] and x["verdict"] != "throttled":
            cov.setdefault(k, []).append(float(x["ci_lo"]) <= 1.0 <= float(x["ci_hi"]))
            mde.setdefault(k, []).append(float(x["mde"]))
print("by kind over the A/A points not throttled (99% CI of the ratio holding 1; MDE at power 0.99):")
for k in sorted(set(cov) | set(untested)):
    c, m = cov.get(k, []), sorted(mde.get(k, []))
    line = f"  {k:15s} tested {len(c):4d}"
    if c:
        q = lambda p: m[min(len(m) - 1, int(p * len(m)))]
        target = {"device <16us": 0.10, "device 16-65us": 0.07, "device >65us": 0.04}.get(k)
        line += (f"  coverage {sum(c)/len(c):.4f}  MDE median {100*q(0.5):.1f}% p90 {100*q(0.9):.1f}%")
        if target:
            line += f"  MDE <= {100*target:.0f}% at {sum(v <= target for v in m)/len(m):.3f} of points"
    line += f"  untested {untested.get(k, 0)}  throttled {thr.get(k, 0)}"
    print(line)
for pct in ("1.05", "1.10"):
    lim = float(pct) - 1
    sel = caught = held = 0
    for k in range(1, P + 1):
        for x in rows(f"plant{pct}-{k}"):
            if x["mde"] and float(x["mde"]) <= lim + 1e-12:
                if x["verdict"] == "throttled":  # its own verdict, never slower
                    held += 1
                    continue
                sel += 1
                caught += x["verdict"] == "slower"
    print(f"planted x{pct}: flagged at {caught} of {sel} points with MDE <= {100*lim:.0f}%"
          f" ({held} more throttled: their own verdict)")
for k in range(3, P + 1):
    r = rows(f"aa{k}-cal")
    c = {}
    for x in r:
        c[x["verdict"]] = c.get(x["verdict"], 0) + 1
    pl = rows(f"plant1.05-{k}-cal")
    print(f"  with the calibration of pairs 1-2: A/A pair {k}: exit {rc.get(f'aa{k}-cal')}: {fmt(c)}; "
          f"planted x1.05: {sum(x['verdict'] == 'slower' for x in pl)} slower")
print("tensor-core 8192^3 points (samples set aside by the runner, seconds waited):")
for k in range(1, P + 1):
    for s in "AB":
        p = f"{W}/runs/{s}{k}/py/results.csv"
        if not os.path.exists(p):
            continue
        for x in csv.DictReader(open(p)):
            if "m=8192" in x["axes"] and x["benchmark"].startswith(("matmul_tc/", "matmul/cublas")):
                print(f"  {s}{k} {x['benchmark']:24s} {x['status']:5s} set aside "
                      f"{x.get('throttled_samples', '')!s:>4s} waited {x.get('throttle_wait_s', '')!s:>6s} s"
                      f"  throttle {x.get('throttle', '')}  SM clock {x.get('sm_clock_min_mhz', '')}-"
                      f"{x.get('sm_clock_max_mhz', '')}")
print("defaults re-derived with these runs as one more set (scripts/record/compare_defaults.py):")
print(open(f"{W}/defaults.txt").read())
PY
cat "$OUT/summary.txt"
cp "$W/cmp/"*.md "$OUT/" 2>/dev/null
tar -C "$W" -cJf "$OUT/aa_pairs.tar.xz" runs cmp log.txt times.txt build.log nvidia-smi.csv \
    points-vec.txt points-mm.txt defaults.txt 2>/dev/null
log "done after $(($(date +%s) - started)) s; $OUT/summary.txt, $OUT/aa_pairs.tar.xz"
rm -rf "$W"
