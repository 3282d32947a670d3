#!/usr/bin/env python3
"""suite_speed_summary.py RUN_DIR... - where a default suite's time went and
which rows came out noisy, from each run's results.csv and meta.json.

Per run: the wall time (meta.json started -> finished), points and noisy
rows, then per family the seconds of each phase (setup, verify, warm-up,
sampling, teardown, and the waits for a throttled GPU, which sit inside
sampling or before a round), then every noisy row with its kind, reason and
note. With two runs, the medians of the rows both have as ok or noisy are
set side by side (ratio B / A), by kind. Plain Python, no packages."""
import csv
import json
import os
import statistics
import sys
from datetime import datetime

PHASES = ("setup_s", "verify_s", "warmup_s", "sampling_s", "teardown_s", "throttle_wait_s")


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


def load(run_dir):
    with open(os.path.join(run_dir, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    try:
        with open(os.path.join(run_dir, "meta.json")) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        meta = {}
    return rows, meta


def wall_s(meta):
    try:
        t0 = datetime.fromisoformat(meta["started"].replace("Z", "+00:00"))
        t1 = datetime.fromisoformat(meta["finished"].replace("Z", "+00:00"))
        return (t1 - t0).total_seconds()
    except (KeyError, TypeError, ValueError, AttributeError):
        return float("nan")


def summarise(run_dir):
    rows, meta = load(run_dir)
    noisy = [r for r in rows if r["status"] == "noisy"]
    print(f"== {run_dir}: {len(rows)} rows in {wall_s(meta):.1f} s "
          f"(complete: {meta.get('complete')}); {len(noisy)} noisy "
          f"({100.0 * len(noisy) / max(len(rows), 1):.1f}%), "
          f"{sum(r['status'] == 'skip' for r in rows)} skip, "
          f"{sum(r['status'] == 'fail' for r in rows)} fail")
    families = {}
    for r in rows:
        f = families.setdefault(r["family"], {"points": 0, "noisy": 0, "rounds": 0,
                                              **{p: 0.0 for p in PHASES}})
        f["points"] += 1
        f["noisy"] += r["status"] == "noisy"
        f["rounds"] += int(number(r.get("replicates")) or 0)
        for p in PHASES:
            f[p] += number(r.get(p))
    head = f"{'family':12} {'points':>6} {'rounds':>6} {'noisy':>5}" + "".join(
        f" {p[:-2]:>9}" for p in PHASES) + f" {'total':>9}"
    print(head)
    total = {p: 0.0 for p in PHASES}
    for name, f in families.items():
        spent = sum(f[p] for p in PHASES[:5])
        print(f"{name:12} {f['points']:6d} {f['rounds']:6d} {f['noisy']:5d}" +
              "".join(f" {f[p]:9.1f}" for p in PHASES) + f" {spent:9.1f}")
        for p in PHASES:
            total[p] += f[p]
    print(f"{'all':12} {len(rows):6d} {'':6} {len(noisy):5d}" +
          "".join(f" {total[p]:9.1f}" for p in PHASES) +
          f" {sum(total[p] for p in PHASES[:5]):9.1f}")
    if noisy:
        print("noisy rows:")
        for r in noisy:
            print(f"  {r['benchmark']:32} {r['axes'][:52]:52} [{r.get('kind', '')}] "
                  f"{r['reason']} | {r.get('throttle', '')} | {r['note'][:80]}")
    return rows


def side_by_side(a_rows, b_rows):
    """Median B / A per point both runs timed, summarised by kind."""
    a = {(r["benchmark"], r["axes"]): r for r in a_rows if r["status"] in ("ok", "noisy")}
    by_kind = {}
    for r in b_rows:
        ra = a.get((r["benchmark"], r["axes"]))
        if r["status"] not in ("ok", "noisy") or not ra:
            continue
        ma, mb = number(ra["median_s"]), number(r["median_s"])
        if ma > 0 and mb > 0:
            by_kind.setdefault(r.get("kind", ""), []).append(mb / ma)
    print("median B / A by kind (points both runs timed): kind, points, "
          "median ratio, 5th..95th percentile, beyond +-2%")
    for kind, ratios in sorted(by_kind.items()):
        ratios.sort()
        lo = ratios[int(0.05 * (len(ratios) - 1))]
        hi = ratios[int(0.95 * (len(ratios) - 1))]
        far = sum(abs(x - 1) > 0.02 for x in ratios)
        print(f"  {kind:12} {len(ratios):4d} {statistics.median(ratios):.4f} "
              f"{lo:.4f}..{hi:.4f} {far:4d}")


def main(argv):
    if len(argv) < 2:
        print("usage: suite_speed_summary.py RUN_DIR...", file=sys.stderr)
        return 2
    runs = []
    for d in argv[1:]:
        try:
            runs.append(summarise(d))
        except OSError as e:
            print(f"suite_speed_summary: {d}: {e.strerror}", file=sys.stderr)
            return 2
    if len(runs) == 2:
        side_by_side(*runs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
