#!/usr/bin/env bash
# gpu_telemetry.sh - the GPU run of the NVML telemetry:
#   1. sustained: cuBLAS TF32 at 8192^3 for >= 1000 cold samples with the
#      sampler at 5 ms, so the samples cover the known fall from ~417 to
#      ~370 TFLOP/s; prints the first 20 against the last 20 samples
#      (TFLOP/s, SM clock, reasons) and the row's telemetry and note.
#   2. overhead: the same eight points (vecadd 2^24..2^28, matmul pipelined
#      4096, pinned 256 MiB copies each way; every run >= 50 us) with the
#      sampler at its default 10 ms and with --no-telemetry, in four rounds
#      ordered on/off/off/on (each round two cubench processes), and the
#      ratio of medians per point (goal: within 0.5% on every point).
# Needs build/cubench (the release preset; built here when missing). Writes
# under $OUT (default ./gpu-out) and packs everything into
# $OUT/telemetry.tar.gz. About 3 minutes on an H200.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/record/lib.sh # release_work; its own log below (to stdout)
release_work telemetry
log() { printf '== %s %s\n' "$(date -u +%H:%M:%S)" "$*"; }

if [ ! -x "$BIN" ]; then
    log "build"
    { cmake --preset release -DPython3_EXECUTABLE="$(command -v python3)" &&
        cmake --build --preset release -j "$(nproc)"; } > "$W/build.log" 2>&1 || {
        tail -20 "$W/build.log"; exit 1; }
fi

{
log "environment (cubench env shows what NVML sees)"
$BIN env --no-cupti 2>&1 | tee "$W/env.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active --format=csv 2>&1

log "1. sustained TF32 8192^3 with telemetry every 5 ms"
$BIN run matmul/cublas_tf32 --axis m=8192 --min-samples 1000 --max-time-per-point 30 \
    --telemetry-period 5 --out "$W/tf32-sustained" 2>&1 | tail -3
python3 - "$W/tf32-sustained" <<'PY'
import csv, json, sys
d = sys.argv[1]
row = next(csv.DictReader(open(f"{d}/results.csv")))
samples = list(csv.DictReader(open(f"{d}/samples.csv")))
flops = float(row["flops"])
def line(s):
    t = float(s["time_s"])
    clk = s["sm_clock_mhz"] or "-"
    return f"{int(s['sample']):6d} {flops / t / 1e12:9.1f} {clk:>8} {s['throttle'] or '-'}"
print(f"{len(samples)} samples; row: median {float(row['tflops']):.1f} TFLOP/s, SM clock "
      f"{row['sm_clock_min_mhz']}/{row['sm_clock_median_mhz']}/{row['sm_clock_max_mhz']} MHz "
      f"(min/median/max), memory {row['mem_clock_median_mhz']} MHz, {row['power_mean_w']} W mean, "
      f"{row['temp_max_c']} C max, throttle {row['throttle'] or '-'}")
print(f"note: {row['note']}")
print(" first 20 samples                      |  last 20 samples")
print(" sample   TFLOP/s SM (MHz) reasons     |  sample   TFLOP/s SM (MHz) reasons")
for a, b in zip(samples[:20], samples[-20:]):
    print(f"{line(a):<38} | {line(b)}")
# Where does the fall happen, and what did the clock do there? Windows of 25.
print("window of 25 samples: median TFLOP/s, median SM clock, reasons seen")
for i in range(0, min(len(samples), 400), 25):
    w = samples[i:i + 25]
    tf = sorted(flops / float(s["time_s"]) / 1e12 for s in w)
    clk = sorted(float(s["sm_clock_mhz"]) for s in w if s["sm_clock_mhz"])
    why = sorted({x for s in w for x in (s["throttle"] or "-").split("+")})
    print(f"  {i:4d}-{i + len(w) - 1:4d} {tf[len(tf) // 2]:7.1f} "
          f"{clk[len(clk) // 2] if clk else float('nan'):7.0f} {'+'.join(why)}")
tel = json.load(open(f"{d}/meta.json"))["telemetry"]
print("meta telemetry:", json.dumps({k: tel[k] for k in ("source", "unavailable_reason", "period_ms",
      "power_source", "clock_event_reasons_call", "sampling")}))
PY

log "2. sampler overhead: on (10 ms) / off / off / on, eight points >= 50 us"
# Two invocations per process: an `n` override would reach matmul's n too.
vec=(vecadd/grid_stride --axis n=2^24:2^28:x2 --axis block=256 --axis grid=auto)
mat=(matmul/pipelined transfers/memcpy_async --axis m=4096 --axis direction=h2d,d2h
     --axis memory=pinned --axis bytes=256Mi)
common=(--min-samples 100 --max-time-per-point 3 --quiet)
i=0
for mode in on off off on; do
    i=$((i + 1))
    extra=()
    [ "$mode" = off ] && extra=(--no-telemetry)
    $BIN run "${vec[@]}" "${common[@]}" "${extra[@]}" --out "$W/ab-$i-$mode-vecadd" 2>&1 | tail -1
    $BIN run "${mat[@]}" "${common[@]}" "${extra[@]}" --out "$W/ab-$i-$mode-other" 2>&1 | tail -1
done
python3 - "$W" <<'PY'
import csv, glob, os, sys
w = sys.argv[1]
runs = sorted(glob.glob(f"{w}/ab-*"))
med = {}  # (bench, axes) -> {mode: [median_s per process]}
for r in runs:
    mode = os.path.basename(r).split("-")[2]
    for row in csv.DictReader(open(f"{r}/results.csv")):
        if row["status"] not in ("ok", "noisy"):
            print("  not timed:", row["benchmark"], row["axes"], row["status"], row["reason"])
            continue
        med.setdefault((row["benchmark"], row["axes"]), {}).setdefault(mode, []).append(float(row["median_s"]))
print(f"{'point':<58} {'median us':>10} {'on/off':>8} {'on A/A':>7} {'off A/A':>7}")
worst = 0
for (b, a), m in med.items():
    on, off = m.get("on", []), m.get("off", [])
    if len(on) != 2 or len(off) != 2:
        print(f"{b} {a}: incomplete {m}")
        continue
    ratio = (sum(on) / 2) / (sum(off) / 2)
    worst = max(worst, abs(ratio - 1))
    print(f"{(b + ' ' + a)[:58]:<58} {sum(off) / 2 * 1e6:10.1f} {100 * (ratio - 1):+7.2f}% "
          f"{100 * (on[1] / on[0] - 1):+6.2f}% {100 * (off[1] / off[0] - 1):+6.2f}%")
print(f"largest |on/off - 1| = {100 * worst:.2f}% (goal <= 0.5%); the A/A columns are the "
      "run-to-run spread of the same setting, for scale")
PY
} 2>&1 | tee "$W/summary.txt"

tar -C "$OUT" -czf "$OUT/telemetry.tar.gz" telemetry && rm -rf "$W"
ls -la "$OUT"
