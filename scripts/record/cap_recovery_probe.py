"""cap_recovery_probe.py - how a GPU comes back from its power cap.

    python3 scripts/record/cap_recovery_probe.py     (PyTorch, an NVIDIA driver)

A BF16 8192^3 matmul loop holds the GPU at its power cap for 3 s; then
1024^3 BF16 matmuls run back to back for 1.5 s, each timed with CUDA events,
while a thread reads NVML every 2 ms: the clock-event reasons (is
sw_power_cap set?), the SM clock and the power. It prints, by window after
the heavy loop, the short kernels' median against the same kernel on a
cool GPU, the share of readings with the cap set, the median SM clock and
power, and when the cap was last set.

Why: the runner waits before a round while the GPU reports a throttle
(harness/run/runner_sample.c, cb_settle_throttle), and in a default suite
most of the time between points is those waits after an 8192^3 GEMM.
Whether the cap flag outlives the reduced clock decides whether the wait
buys anything (docs/methodology.md has the H200's answer). The short
kernels' times are host-paced (an event pair and a sync per kernel), so
they wander by tens of percent between runs; the NVML columns are the
measurement.
"""
import ctypes
import threading
import time

import torch

nv = ctypes.CDLL("libnvidia-ml.so.1")
if nv.nvmlInit_v2() != 0:
    raise SystemExit("cap_recovery_probe: NVML could not be initialised")
handle = ctypes.c_void_p()
if nv.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(handle)) != 0:
    raise SystemExit("cap_recovery_probe: no NVML handle for GPU 0")
SW_CAP = 0x4  # nvmlClocksEventReasonSwPowerCap
NVML_CLOCK_SM = 1
log = []  # (host time, reasons, SM clock MHz, power W)
failed_reads = 0
stop = False


def poll():
    """Read NVML every 2 ms until stopped; a reading whose calls fail is dropped."""
    global failed_reads
    reasons, clock, milliwatts = ctypes.c_ulonglong(), ctypes.c_uint(), ctypes.c_uint()
    while not stop:
        t = time.perf_counter()
        ok = (nv.nvmlDeviceGetCurrentClocksEventReasons(handle, ctypes.byref(reasons)) == 0
              and nv.nvmlDeviceGetClockInfo(handle, NVML_CLOCK_SM, ctypes.byref(clock)) == 0
              and nv.nvmlDeviceGetPowerUsage(handle, ctypes.byref(milliwatts)) == 0)
        if ok:
            log.append((t, reasons.value, clock.value, milliwatts.value / 1000))
        else:
            failed_reads += 1
        time.sleep(0.002)


th = threading.Thread(target=poll)
th.start()
big = [torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16) for _ in range(2)]
small = [torch.randn(1024, 1024, device="cuda", dtype=torch.bfloat16) for _ in range(2)]
for _ in range(20):
    small[0] @ small[1]
torch.cuda.synchronize()


def time_small(n):
    """n short matmuls, each timed by its own event pair: (host time, us)."""
    out = []
    for _ in range(n):
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        e0.record()
        small[0] @ small[1]
        e1.record()
        e1.synchronize()
        out.append((time.perf_counter(), e0.elapsed_time(e1) * 1e3))
    return out


time.sleep(1.0)
cool = time_small(300)  # the short kernel on a cool GPU
t_heavy = time.perf_counter()
while time.perf_counter() - t_heavy < 3.0:
    for _ in range(10):
        big[0] @ big[1]
    torch.cuda.synchronize()
t_end = time.perf_counter()
after = []
while time.perf_counter() - t_end < 1.5:
    after += time_small(20)
stop = True
th.join()
cool_us = sorted(x[1] for x in cool)[len(cool) // 2]
print(f"small 1024^3 BF16 matmul on a cool GPU: median {cool_us:.2f} us")
print("after the heavy loop (t from its end): window, the short kernels' median (and against the cool"
      " one), the share of NVML readings with sw_power_cap, their median SM clock and power")
EDGES = [0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0, 1.5]
for w0, w1 in zip(EDGES, EDGES[1:]):
    ks = sorted(x[1] for x in after if w0 <= x[0] - t_end < w1)
    rs = [x for x in log if w0 <= x[0] - t_end < w1]
    if not ks or not rs:
        continue
    cap = sum(1 for x in rs if x[1] & SW_CAP) / len(rs)
    clk = sorted(x[2] for x in rs)[len(rs) // 2]
    pw = sorted(x[3] for x in rs)[len(rs) // 2]
    med = ks[len(ks) // 2]
    print(f"  {w0:4.2f}-{w1:4.2f} s: {len(ks):5d} kernels, median {med:6.2f} us ({med / cool_us:5.3f}),"
          f" cap {cap:4.2f} of {len(rs):3d} readings, SM clock {clk} MHz, power {pw:.0f} W")
last_cap = max((x[0] - t_end for x in log if x[1] & SW_CAP and x[0] > t_end), default=None)
print("last sw_power_cap reading after the heavy loop:", None if last_cap is None else f"{last_cap:.3f} s")
heavy = [x for x in log if t_heavy + 1 < x[0] < t_end]
print("NVML readings that failed:", failed_reads)
print("during the heavy loop: share capped", round(sum(1 for x in heavy if x[1] & SW_CAP) / max(1, len(heavy)), 2),
      "clock median", sorted(x[2] for x in heavy)[len(heavy)//2] if heavy else None)
