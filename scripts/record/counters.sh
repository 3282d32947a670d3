#!/usr/bin/env bash
# counters.sh [OUT] - hardware counters per point, recorded on one GPU
# (OUT: the argument, else $OUT, else ./gpu-out):
#   1. build for this machine's GPUs (scripts/build.sh native)
#   2. the counters GPU test (tests/gpu/test_counters.c): vecadd's float4
#      rung at 2^28 gets one range as long as its kernel and reaches >= 85%
#      of DRAM peak, the work model agrees with the counters, timing with
#      and without --metrics agrees, every preset collects, a point of two
#      kernels and a copy alone
#   3. the ladders with --metrics sol, then without, one family at a time,
#      one size each: vecadd's four GPU rungs at n = 2^28 (every block,
#      grid, ilp and hint of the default sweep), the FP32 matmul ladder and
#      the tensor-core ladder with its cuBLAS ceilings at 4096, and
#      transfers' device-side points at 256 MiB (zero-copy kernels, a
#      device-to-device copy, the overlap kernel stage alone)
#   4. cubench compare WITHOUT WITH for each family (exit 0 expected: the
#      metric pass stays out of the samples) and the extra wall time per point
#   5. python -m cubench: CuPy's and PyTorch's add at 2^28 with --metrics sol
#      (the same pass around a framework's call)
#   6. vecadd's float4 rung again with --no-cupti: the thread instructions
#      without CUPTI's kernel tracing beside the process (it patches the
#      kernels it times: the counters then count its instructions too)
#   7. the tables: metric passes per family, SOL figures, doc-tables.md
#   8. Nsight Compute on four rungs (run right after the vecadd ladder),
#      the same metrics, clocks unlocked as cubench leaves them, caches
#      flushed before each replay as cubench does for cold points: the
#      side-by-side table, per metric; a rung of several kernels is set
#      beside ncu's kernels combined by the rule cubench uses (counts
#      summed, the rest weighted by kernel time)
# About 2.5 minutes of GPU time on an H200 (the build about 25 s of it);
# step 8's rungs are dropped one by one past BUDGET seconds (default 170).
#
# Writes under OUT: summary.txt (also printed); build.log, test_counters.log;
# sol-FAMILY/ and plain-FAMILY/ (run directories), compare-FAMILY.md,
# sol-python/, sol-nocupti/; wall.csv (seconds per point of each metric
# pass); doc-tables.md; ncu-RUNG.csv (ncu's raw page, base units),
# ncu-RUNG.log, side-by-side.csv; ncu-rep/ (ncu's reports, large: keep the
# CSVs).
# Needs: the CUDA toolkit, libjansson-dev (or CMAKE_PREFIX_PATH pointing at
# it), python3, and ncu on PATH or under /opt/nvidia/nsight-compute for
# step 8.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. scripts/record/lib.sh
open_out "${1:-}"
BUDGET=${BUDGET:-170}
over_budget() { [ $(( $(date +%s) - T0 )) -ge "$BUDGET" ]; }

step_env() {
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu \
        --format=csv,noheader > "$OUT/nvidia-smi.txt" 2>&1
    say "GPU: $(head -1 "$OUT/nvidia-smi.txt")"
    find_ncu
    say "ncu: ${NCU:-not found} $( [ -n "${NCU:-}" ] && "$NCU" --version 2>/dev/null | tail -1)"
}

step_test() {
    log "tests/gpu/test_counters"
    timeout 180 build-native/tests/test_counters > "$OUT/test_counters.log" 2>&1
    say "test_counters rc=$? (0 pass, 1 fail, 77 skipped: see the log's last line)"
    grep -E "^[0-9]\.|median|DRAM|counters /|check failed|skipped|passed" "$OUT/test_counters.log" \
        | head -20 | tee -a "$SUMMARY"
}

# FAMILY -> the benchmarks and axes of its ladder.
family_args() {
    case $1 in
    vecadd) echo "vecadd/thread_per_elem vecadd/float4_per_thread vecadd/grid_stride vecadd/grid_stride_float4 --axis n=2^28" ;;
    fp32) echo "matmul/cublas_fp32 matmul/naive_uncoalesced matmul/naive_coalesced matmul/smem_tiled matmul/regblock_1d matmul/regblock_2d matmul/vectorized matmul/warptiled matmul/pipelined --axis m=4096" ;;
    tc) echo "matmul_tc/* matmul/cublas_bf16 matmul/cublas_tf32 --axis m=4096" ;;
    xfer) echo "transfers/zero_copy transfers/d2d transfers/overlap --axis bytes=2^28 --axis stage=kernel --axis streams=1" ;;
    esac
}

# One family with --metrics sol and without; the wall time of each run.
run_family() {
    local fam=$1 args t
    read -r -a args <<< "$(family_args "$fam")"
    t=$(date +%s%N)
    timeout 300 "$BIN" run "${args[@]}" --metrics sol --quiet --out "$OUT/sol-$fam" \
        > "$OUT/sol-$fam.log" 2>&1
    local rc_sol=$? t_sol
    t_sol=$(( ($(date +%s%N) - t) / 1000000 ))
    t=$(date +%s%N)
    timeout 300 "$BIN" run "${args[@]}" --quiet --out "$OUT/plain-$fam" > "$OUT/plain-$fam.log" 2>&1
    local rc_plain=$? t_plain
    t_plain=$(( ($(date +%s%N) - t) / 1000000 ))
    "$BIN" compare "$OUT/plain-$fam" "$OUT/sol-$fam" > "$OUT/compare-$fam.md" 2> "$OUT/compare-$fam.log"
    local rc_cmp=$?
    say "$fam: with --metrics sol rc=$rc_sol ${t_sol} ms, without rc=$rc_plain ${t_plain} ms; compare (without -> with) rc=$rc_cmp (0 expected)"
    grep -E "cubench:|stopped" "$OUT/sol-$fam.log" | tail -2 | tee -a "$SUMMARY"
    [ $rc_cmp -ne 0 ] && grep -iE "slower|faster|regress" "$OUT/compare-$fam.md" | head -6 | tee -a "$SUMMARY"
}

step_ladder() {
    log "ladder $1"
    run_family "$1"
}

# The Python front end: the same metric pass around a framework's call.
step_python() {
    log "Python frameworks: cupy/add and torch/add at 2^28 with --metrics sol"
    CUBENCH_LIB=$PWD/build-native/libcubench.so PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} \
        timeout 120 python3 -m cubench run cupy/add torch/add --axis n=2^28 --metrics sol --quiet \
        --out "$OUT/sol-python" > "$OUT/sol-python.log" 2>&1
    say "python -m cubench run cupy/add torch/add --metrics sol: rc=$? ($(tail -1 "$OUT/sol-python.log"))"
}

# The float4 rung without CUPTI's tracing: its thread instructions beside
# the traced run's (sol-vecadd) and ncu's, which runs with --no-cupti too.
step_nocupti() {
    log "vecadd float4 at 2^28 with --metrics sol --no-cupti"
    timeout 60 "$BIN" run vecadd/float4_per_thread --axis n=2^28 --axis block=256 --metrics sol \
        --no-cupti --quiet --out "$OUT/sol-nocupti" > "$OUT/sol-nocupti.log" 2>&1
    say "sol-nocupti: rc=$? ($(tail -1 "$OUT/sol-nocupti.log"))"
}

# Per family: how many metric passes collected, skipped or failed, how many
# kernels their ranges covered, and the extra wall time per point; the SOL
# figures of the rungs the docs quote.
step_tables() {
    log "metric passes and SOL figures"
    python3 - "$OUT" <<'PY' 2>&1 | tee -a "$SUMMARY"
import csv, lzma, statistics, sys, pathlib
out = pathlib.Path(sys.argv[1])
wall = open(out / "wall.csv", "w", newline="")
w = csv.writer(wall)
w.writerow(["family", "benchmark", "axes", "metrics_status", "metrics_kernels", "metrics_passes",
            "metrics_wall_s", "median_s"])
def metrics_rows(run):
    for name, opener in (("metrics.csv", open), ("metrics.csv.xz", lzma.open)):
        p = out / run / name
        if p.exists():
            with opener(p, "rt", newline="") as f:
                return list(csv.DictReader(f))
    return []
cache = {}
def metric(run, bench, axes, name):
    if run not in cache: cache[run] = metrics_rows(run)
    for r in cache[run]:
        if r["benchmark"] == bench and r["axes"] == axes and r["metric"] == name:
            try: return float(r["value"])
            except ValueError: return float("nan")
    return float("nan")
def num(r, k):
    try: return float(r[k])
    except (KeyError, ValueError): return float("nan")
doc = open(out / "doc-tables.md", "w")
doc.write("<!-- scripts/record/counters.sh: the counters of each ladder from sol-*/ -->\n")
def table(title, cols, rows):
    doc.write(f"\n### {title}\n\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
    for row in rows:
        doc.write("| " + " | ".join(row) + " |\n")
def f1(x): return "-" if x != x else f"{x:.1f}"
def f2(x): return "-" if x != x else f"{x:.2f}"
for fam in ["vecadd", "fp32", "tc", "xfer", "python"]:
    p = out / f"sol-{fam}" / "results.csv"
    if not p.exists():
        print(f"{fam}: no results.csv"); continue
    rows = list(csv.DictReader(open(p)))
    st, kern = {}, {}
    for r in rows:
        st[r["metrics_status"] or "-"] = st.get(r["metrics_status"] or "-", 0) + 1
        kern[r.get("metrics_kernels") or "-"] = kern.get(r.get("metrics_kernels") or "-", 0) + 1
        w.writerow([fam, r["benchmark"], r["axes"], r["metrics_status"], r.get("metrics_kernels", ""),
                    r["metrics_passes"], r["metrics_wall_s"], r["median_s"]])
    ws = [float(r["metrics_wall_s"]) for r in rows if r["metrics_wall_s"]]
    print(f"{fam}: {len(rows)} points, metric passes {st}, kernels per run {kern}; extra wall per point: "
          + (f"median {statistics.median(ws):.3f} s, max {max(ws):.3f} s, total {sum(ws):.1f} s" if ws else "none"))
    for r in rows:
        if r["metrics_status"] == "fail" or (r["metrics_status"] == "ok" and r["metrics_reason"]):
            print(f"  {r['metrics_status']} {r['benchmark']} {r['axes']}: {r['metrics_reason']}")
    bad = [r for r in rows if r["metrics_status"] == "skip"]
    if bad:
        print(f"  skip, e.g. {bad[0]['benchmark']}: {bad[0]['metrics_reason']}")
    for r in rows:
        def f(k, d=1):
            try: return f"{float(r[k]):.{d}f}"
            except ValueError: return "-"
        t_range = metric(f"sol-{fam}", r["benchmark"], r["axes"], "gpu__time_duration.sum") * 1e-9
        t_timed = num(r, "cupti_median_s")
        print(f"  {r['benchmark']:30s} {r['axes'][:44]:44s} dram {f('sol_dram_pct')} l2 {f('sol_l2_pct')} "
              f"l1 {f('sol_l1_pct')} sm {f('sol_sm_pct')} tensor {f('sol_tensor_pct')} | "
              f"kernels {r.get('metrics_kernels') or '-'} range/timed {t_range / t_timed:.3f} | "
              f"bytes x{(float(r['dram_bytes'])/float(r['bytes'])) if r['dram_bytes'] and r['bytes'] else float('nan'):.2f} "
              f"flops x{(float(r['measured_flops'])/float(r['flops'])) if r['measured_flops'] and r['flops'] else float('nan'):.2f}")
    pick = [r for r in rows if r["metrics_status"] == "ok" and (
        fam in ("fp32", "tc") or "268435456" in r["axes"])]
    per_elem = fam in ("vecadd", "python")
    cols = ["benchmark", "axes", "GB/s" if fam in ("vecadd", "xfer", "python") else "TFLOP/s",
            "DRAM %", "L2 %", "L1 %", "SM %", "tensor %", "DRAM bytes / model", "FLOPs / model",
            "kernels", "thread instr. / element" if per_elem else "passes"]
    out_rows = []
    for r in pick:
        a = dict(kv.split("=", 1) for kv in r["axes"].split(";") if "=" in kv)
        fig = num(r, "gbps") if cols[2] == "GB/s" else num(r, "tflops")
        inst = metric(f"sol-{fam}", r["benchmark"], r["axes"], "smsp__thread_inst_executed.sum")
        last = (f2(inst / float(a["n"])) if "n" in a else "-") if per_elem else r["metrics_passes"]
        out_rows.append([r["benchmark"], r["axes"], f1(fig), f1(num(r, "sol_dram_pct")),
                         f1(num(r, "sol_l2_pct")), f1(num(r, "sol_l1_pct")), f1(num(r, "sol_sm_pct")),
                         f1(num(r, "sol_tensor_pct")), f2(num(r, "dram_bytes") / num(r, "bytes")),
                         f2(num(r, "measured_flops") / num(r, "flops")),
                         r.get("metrics_kernels") or "-", last])
    table(fam, cols, out_rows)
# CUPTI's kernel tracing and the instruction counts (step 6).
key = ("vecadd/float4_per_thread", "n=268435456;block=256")
traced = metric("sol-vecadd", *key, "smsp__thread_inst_executed.sum")
untraced = metric("sol-nocupti", *key, "smsp__thread_inst_executed.sum")
print(f"vecadd float4 2^28 thread instructions per element: {traced / 2**28:.3f} traced, "
      f"{untraced / 2**28:.3f} with --no-cupti; DRAM % {metric('sol-vecadd', *key, 'dram__throughput.avg.pct_of_peak_sustained_elapsed'):.2f} "
      f"and {metric('sol-nocupti', *key, 'dram__throughput.avg.pct_of_peak_sustained_elapsed'):.2f}")
wall.close()
doc.close()
print("doc-tables.md: the tables for docs/counters.md and the ladder docs")
PY
}

# RUNG NAME BENCH AXIS...: ncu on the point's one profiled run (--profile,
# hot: no flush kernel inside the range), the metrics of the sol run.
ncu_rung() {
    local name=$1 bench=$2
    shift 2
    local axes=()
    for a in "$@"; do axes+=(--axis "$a"); done
    if over_budget; then say "ncu $name: skipped (over the ${BUDGET} s budget)"; return; fi
    mkdir -p "$OUT/ncu-rep"
    group_timeout 120 "$NCU" --clock-control none --cache-control all --profile-from-start off \
        --metrics "$METRICS" -f -o "$OUT/ncu-rep/$name" \
        "$BIN" run "$bench" "${axes[@]}" --profile --no-cupti --cache hot --quick --quiet \
        --out "$OUT/ncu-run-$name" > "$OUT/ncu-$name.log" 2>&1
    local rc=$?
    "$NCU" --import "$OUT/ncu-rep/$name.ncu-rep" --csv --page raw --print-units base \
        > "$OUT/ncu-$name.csv" 2>> "$OUT/ncu-$name.log"
    say "ncu $name ($bench ${*}): rc=$rc, $(($(wc -l < "$OUT/ncu-$name.csv") - 2)) kernel row(s)"
}

# Nsight Compute on the four rungs, with the metric list cubench resolved
# (sol-vecadd's meta.json); right after the vecadd ladder, so the budget
# never drops it.
step_ncu() {
    if [ -z "${NCU:-}" ]; then say "ncu: not found, no side-by-side"; return; fi
    METRICS=$(python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['metrics']; print(','.join(x['name'] for x in m['chips'][0]['metrics']))" "$OUT/sol-vecadd/meta.json" 2>/dev/null)
    if [ -z "$METRICS" ]; then say "ncu: no metric list in sol-vecadd/meta.json"; return; fi
    log "Nsight Compute on four rungs"
    ncu_rung vecadd-float4 vecadd/float4_per_thread n=2^28 block=256
    ncu_rung tc-ldmatrix-bf16 matmul_tc/ldmatrix_bf16 m=4096
    ncu_rung fp32-cublas matmul/cublas_fp32 m=4096
    ncu_rung tc-wgmma-tf32 matmul_tc/wgmma_tf32 m=4096
}

# cubench's rows beside ncu's kernels, once every family has run.
step_side_by_side() {
    log "side by side"
    python3 - "$OUT" <<'PY' 2>&1 | tee -a "$SUMMARY"
import csv, sys, pathlib, math
out = pathlib.Path(sys.argv[1])
# rung -> (family run, benchmark, axis values that pick its row)
rungs = {
    "vecadd-float4": ("vecadd", "vecadd/float4_per_thread", {"n": "268435456", "block": "256"}),
    "tc-ldmatrix-bf16": ("tc", "matmul_tc/ldmatrix_bf16", {"m": "4096"}),
    "fp32-cublas": ("fp32", "matmul/cublas_fp32", {"m": "4096"}),
    "tc-wgmma-tf32": ("tc", "matmul_tc/wgmma_tf32", {"m": "4096"}),
}
def axes_of(text):
    return dict(kv.split("=", 1) for kv in text.split(";") if "=" in kv)
def value(text):
    try: return float(text.replace(",", ""))
    except ValueError: return math.nan
def combine(name, kernels, col, tcol):
    """ncu's kernels of one point by cubench's rule (counters_aggregate.c):
    a name ending in a rollup (.sum .avg .min .max) adds up, anything else
    is the mean weighted by each kernel's gpu__time_duration.sum."""
    xs = [value(k[col]) for k in kernels]
    if len(xs) == 1: return xs[0]
    if name.rsplit(".", 1)[-1] in ("sum", "avg", "min", "max"): return sum(xs)
    ws = [value(k[tcol]) for k in kernels]
    pairs = [(x, w) for x, w in zip(xs, ws) if not math.isnan(x) and w > 0]
    return sum(x * w for x, w in pairs) / sum(w for _, w in pairs) if pairs else math.nan
rows_out = [["rung", "kernels", "metric", "unit", "cubench", "ncu", "diff", "kind"]]
for rung, (fam, bench, want) in rungs.items():
    p = out / f"ncu-{rung}.csv"
    m = out / f"sol-{fam}" / "metrics.csv"
    r = out / f"sol-{fam}" / "results.csv"
    if not p.exists() or not m.exists():
        continue
    table = list(csv.reader(l for l in open(p) if l.startswith('"')))
    if len(table) < 3:
        print(f"{rung}: ncu wrote no kernel rows (see ncu-{rung}.log)"); continue
    head, kernels = table[0], table[2:]
    tcol = head.index("gpu__time_duration.sum")
    ours = {}
    for row in csv.DictReader(open(m)):
        a = axes_of(row["axes"])
        if row["benchmark"] == bench and all(a.get(x) == v for x, v in want.items()):
            ours[row["metric"]] = (row["value"], row["unit"])
    ours_kernels = "?"
    for row in csv.DictReader(open(r)):
        a = axes_of(row["axes"])
        if row["benchmark"] == bench and all(a.get(x) == v for x, v in want.items()):
            ours_kernels = row.get("metrics_kernels") or "-"
    names = [k[head.index("Kernel Name")][:40] for k in kernels] if "Kernel Name" in head else []
    worst = 0.0
    for i, name in enumerate(head):
        if name not in ours:
            continue
        a, b = value(ours[name][0]), combine(name, kernels, i, tcol)
        pct = ours[name][1] == "percent"
        diff = a - b if pct else (a / b - 1 if b else math.nan)
        if pct and not math.isnan(diff): worst = max(worst, abs(diff))
        rows_out.append([rung, len(kernels), name, ours[name][1], a, b, diff, "pp" if pct else "relative"])
    flag = "" if worst <= 2 else "  <-- more than 2 percentage points apart"
    print(f"{rung}: ncu {len(kernels)} kernel(s) {names}, cubench metrics_kernels {ours_kernels}: "
          f"largest SOL difference {worst:.2f} pp{flag}")
with open(out / "side-by-side.csv", "w", newline="") as f:
    csv.writer(f).writerows(rows_out)
print(f"side-by-side.csv: {len(rows_out) - 1} metric rows")
PY
}

step_env
build_native
step_test
step_ladder vecadd
step_ncu
for fam in fp32 tc xfer; do step_ladder "$fam"; done
step_python
step_nocupti
step_tables
step_side_by_side
log "done"
