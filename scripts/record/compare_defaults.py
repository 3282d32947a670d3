#!/usr/bin/env python3
"""The between-run spread `cubench compare` assumes by kind of point,
derived from the recorded H200 runs in tests/data (docs/compare.md,
"Defaults by kind"). Prints the table that harness/compare/compare_defaults.c
holds; `--check FILE` exits 1 when FILE's table differs from what the data
give (tests/py/test_compare_aa.py runs it, so the code cannot drift from the
data).

Method. A *set* is several processes of one build on one GPU, back to back
(listed in SETS). For every point timed in >= 2 processes of a set: each process's
center c = log(median_s) and its own variance v, from the 95% CI of the
median that results.csv records (((log ci_hi - log ci_lo) / (2 x 1.96))^2).
Per kind (and, for device kernels, per time tier of the median), pooled over
the sets' points:
  between-run variance per run  s2 = sum (K-1)(s_p^2 - mean v_p) / sum (K-1)
     (s_p^2: the sample variance of the point's K centers; the part of their
     disagreement their own CIs do not explain), floored at mean v (never 0);
  run-wide part  r2: per set, each process's mean offset over the points it
     shares with the others; their variance less what the points' own
     spread puts into a mean of P of them; df: processes - 1, summed;
  df of s2 by Welch-Satterthwaite over the run-wide part (df K - 1) and the
     rest (df sum (K-1) - (K-1)): degrees of freedom count processes, not
     points, for what processes share.
Throttled points (a throttling reason in `throttle`, or an SM clock that
moved by more than 2% while sampling) are left out: compare gives them their
own verdict. A kind's default is *trusted* when (1) at
least 3 processes of one set measured it (the run-wide part has df >= 2),
(2) it rests on >= 10 points, and (3) its 99% intervals held the recorded
difference of >= 98% of the pairs of processes at its points
(|c_i - c_j| <= t(0.995, df) sqrt(v_i + v_j + 2 s2)). An untrusted kind has
no default: compare calls its points inconclusive from one run per side.
So has a kind listed in NO_DEFAULT, whatever its recorded pairs say: copies
staged through pageable memory, whose recorded pairs (the A/A sets below)
understate how far a whole process's copies move (docs/compare.md).
Raised where needed: the default is at least the spread whose 99% intervals
held 99% of the recorded pairs (between-process differences have heavier
tails than a normal model: bimodal points).
Only the standard library: runs anywhere Python 3 does."""
import argparse
import csv
import json
import math
import pathlib
import re
import statistics
import sys

from recorded import open_csv

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"

# Processes of one build on one GPU, back to back (meta.json: the device
# UUID, the git SHA and the start time agree); a run alone on its GPU (the
# PTX-JIT suite, the tensor-core ladder) has no partner and is left out.
SETS = {
    "h200-aa-r2": [f"h200-aa-r2/{s}{i}" for s in "AB" for i in range(1, 6)],
    "h200-aa1": ["h200-aa1-A", "h200-aa1-B", "h200-vecadd-defaults", "h200-vecadd-defaults-run2"],
    "h200-aa2": ["h200-aa2-A", "h200-aa2-B"],
    "h200-aa3": ["h200-aa3-A", "h200-aa3-B"],
    "h200-defaults-r2": ["h200-defaults-r2", "h200-tf32-telemetry"],
    "h200-aa-r3": [f"h200-aa-r3/{s}{i}/{p}" for s in "AB" for i in range(1, 6)
                   for p in ("vec", "mm", "py")],
    "h200-aa-r3b": [f"h200-aa-r3b/{s}{i}/{p}" for s in "AB" for i in range(1, 6)
                    for p in ("vec", "mm", "py")],
    "h200-python": [f"h200-python-{x}" for x in
                    ("torch", "cupy", "jax", "numba", "triton", "others", "mixed-vecadd",
                     "mixed-matmul")],
}
COVERAGE = 0.99
KINDS = ("device", "host_copy", "staged_copy", "host", "python", "multi_gpu")
# Kinds that get no default however their recorded pairs look, and why (the
# note compare gives their points). Copies from pageable memory: in A/A runs
# of the whole default suite (tests/data/h200-r3/suiteN, suiteO) one process's
# pageable copies ran 1.4-2.5x slower or faster than the other's at 6 of 14
# points, far outside what the A/A sets' pageable points put in their spread.
NO_DEFAULT = {
    "staged_copy": "no default between-run spread: copies staged through pageable memory moved "
                   "by up to 2.5x between processes of one build",
}
# Kinds whose points are pooled into another's default. The other copies
# through host memory keep the default of every such copy: derived from
# them alone (2.3% per run) it would have called four copies of 16-256 KiB
# slower or faster in one A/A pair of the whole suite (h200-r3/suiteN,
# M1/M2: 0.70-0.77), which the pooled one (7.1%) did not.
POOLED_INTO = {"staged_copy": "host_copy"}
# Device kernels by BASE median (compare_defaults.c): launch- and
# clock-ramp-bound below 16.4 us, 16.4-65.5 us, above.
TIERS = {"device": (16.384e-6, 65.536e-6, math.inf)}
CLOCK_MOVED = 0.02
BENIGN = {"", "none", "gpu_idle", "applications_clocks_setting", "display_clock_setting"}
T995 = {1: 63.657, 2: 9.925, 3: 5.841, 4: 4.604, 5: 4.032, 6: 3.707, 8: 3.355, 10: 3.169,
        15: 2.947, 20: 2.845, 30: 2.750, 60: 2.660, 120: 2.617}


def t995(df):
    """t(0.995, df), from the table (the next smaller tabled df: conservative)."""
    if df >= 1000:
        return 2.5758
    best = 63.657
    for k, v in sorted(T995.items()):
        if df >= k:
            best = v
    return best


def kind_of(row, frameworks, has_device_col):
    """compare_kind.h's rules for rows that do not declare their kind."""
    axes = dict(a.split("=", 1) for a in row["axes"].split(";") if "=" in a)
    if row.get("kind"):
        # compare_kind.h: pageable copies declared before staged_copy existed
        if row["kind"] == "host_copy" and axes.get("memory") == "pageable":
            return "staged_copy"
        return row["kind"]
    family = row.get("family") or row["benchmark"].split("/")[0]
    if family in frameworks:
        return "python"
    if "ranks" in axes or "peer" in axes:
        return "multi_gpu"
    if axes.get("memory") == "pageable":
        return "staged_copy"
    if "memory" in axes or any(v in ("h2d", "d2h") for v in axes.values()):
        return "host_copy"
    host_timed = row.get("timer") == "host"
    if has_device_col:
        if not row.get("device"):
            return "host"
        return "host_copy" if host_timed else "device"
    return "host" if host_timed else "device"


def throttled(row):
    """compare's evidence of throttling in a results.csv row: a reason
    that counts, or an SM clock that moved by more than 2% while sampling."""
    if set(row.get("throttle", "").split("+")) - BENIGN:
        return True
    lo, hi = row.get("sm_clock_min_mhz"), row.get("sm_clock_max_mhz")
    return bool(lo and hi) and float(lo) < (1 - CLOCK_MOVED) * float(hi)


def tier_of(kind, median):
    bounds = TIERS.get(kind, (math.inf,))
    return next(i for i, b in enumerate(bounds) if median < b)


def read_set(dirs):
    """{(kind, tier, point): [(process, c, v)]} of one set."""
    points = {}
    for d in dirs:
        path = DATA / d
        py = path / "python.json"
        frameworks = set(json.loads(py.read_text()).get("frameworks", {})) if py.exists() else set()
        with open_csv(path, "results.csv") as f:
            reader = csv.DictReader(f)
            has_device_col = "device" in reader.fieldnames
            for r in reader:
                if r["status"] not in ("ok", "noisy") or not r["ci_lo_s"]:
                    continue
                kind = kind_of(r, frameworks, has_device_col)
                if throttled(r):
                    continue
                med, lo, hi = float(r["median_s"]), float(r["ci_lo_s"]), float(r["ci_hi_s"])
                v = ((math.log(hi) - math.log(lo)) / (2 * 1.96)) ** 2
                key = (kind, tier_of(kind, med), r["benchmark"], r["axes"], r.get("device", ""))
                points.setdefault(key, []).append((d, math.log(med), v))
    return {k: obs for k, obs in points.items() if len(obs) >= 2}


def run_wide(points):
    """Variance of the processes' mean offsets (each over the points it
    timed), less what the points' own spread puts into such a mean, and its
    df: processes less the parts they split into (a part: the processes
    that timed one set of points)."""
    offsets, counts, parts = {}, {}, {}
    spread = 0.0
    for obs in points:
        mean = statistics.fmean(c for _, c, _ in obs)
        spread += statistics.variance([c for _, c, _ in obs])
        for p, c, _ in obs:
            offsets[p] = offsets.get(p, 0.0) + c - mean
            counts[p] = counts.get(p, 0) + 1
    for obs in points:
        for p, _, _ in obs:
            parts.setdefault(p, set()).add(id(obs))
    procs = sorted(offsets)
    n_parts = len({frozenset(v) for v in parts.values()})
    most = max(len(obs) for obs in points)
    if len(procs) - n_parts < 1:
        return 0.0, 0.0, most
    o = [offsets[p] / counts[p] for p in procs]
    per_proc = statistics.fmean(counts.values())
    s2 = statistics.variance(o) - spread / len(points) / per_proc
    return max(s2, 0.0), len(procs) - n_parts, most


def coverage(pairs, df, sd):
    """The share of pairs (difference, own variance) whose 99% interval
    with a between-run spread `sd` per run holds 0."""
    t = t995(df)
    return sum(abs(d) <= t * math.sqrt(v + 2 * sd * sd) for d, v in pairs) / len(pairs)


def held_at(pairs, df, share):
    """The smallest spread whose 99% intervals hold `share` of the pairs."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if coverage(pairs, df, mid) < share else (lo, mid)
    return hi


def derive():
    groups = {}
    for name, dirs in SETS.items():
        for (kind, tier, *_), obs in read_set(dirs).items():
            kind = POOLED_INTO.get(kind, kind)
            groups.setdefault((kind, tier), {}).setdefault(name, []).append(obs)
    table = []
    for (kind, tier), sets in sorted(groups.items(), key=lambda kv: (KINDS.index(kv[0][0]), kv[0][1])):
        num = den = within = 0.0
        run_num = run_df = 0.0
        points = most = 0
        for name, pts in sets.items():
            r2, df, procs = run_wide(pts)
            run_num += r2 * df
            run_df += df
            most = max(most, procs, max(len(o) for o in pts))
            for obs in pts:
                k = len(obs)
                num += (k - 1) * (statistics.variance([c for _, c, _ in obs]) -
                                  statistics.fmean(v for _, _, v in obs))
                den += k - 1
                within += statistics.fmean(v for _, _, v in obs)
                points += 1
        s2 = max(num / den, within / points)
        r2 = min(run_num / run_df, s2) if run_df else math.nan
        rest_df = max(den - run_df, 1.0)
        if run_df and r2 > 0:
            df = s2 ** 2 / (r2 ** 2 / run_df + (s2 - r2) ** 2 / rest_df)
        else:
            df = den
        pairs = [(obs[i][1] - obs[j][1], obs[i][2] + obs[j][2])
                 for pts in sets.values() for obs in pts
                 for i in range(len(obs)) for j in range(i + 1, len(obs))]
        pooled = math.sqrt(s2)
        sd = max(pooled, held_at(pairs, df, COVERAGE))
        # (1) is per set: several sets of two processes each sum to a
        # run-wide df >= 2 without any set that saw three processes
        trusted = most >= 3 and run_df >= 2 and points >= 10
        table.append(dict(kind=kind, tier=tier, sd=sd, pooled=pooled, df=df,
                          run_sd=math.sqrt(r2) if run_df else math.nan, run_df=run_df,
                          points=points, processes=most, sets=len(sets), pairs=len(pairs),
                          coverage=coverage(pairs, df, pooled), trusted=trusted))
    for kind in KINDS:  # a kind no recorded pair measured (or pooled into another): none
        if not any(r["kind"] == kind for r in table):
            table.append(dict(kind=kind, tier=0, sd=math.nan, pooled=math.nan, df=math.nan,
                              run_sd=math.nan, run_df=0, points=0, processes=0, sets=0, pairs=0,
                              coverage=math.nan, trusted=False))
    table.sort(key=lambda r: (KINDS.index(r["kind"]), r["tier"]))
    return table


def fmt(row):
    bound = TIERS.get(row["kind"], (math.inf,))[row["tier"]]
    below = "INFINITY" if math.isinf(bound) else f"{bound:.6g}"
    if not row["points"]:
        why = NO_DEFAULT.get(row["kind"], "no recorded pair of processes")
        return f"{row['kind']:11s} NOT trusted ({why})"
    return (f"{row['kind']:11s} below {below:>9s}  sd {row['sd']:.4f}  df {row['df']:6.1f}  "
            f"run_sd {row['run_sd']:.4f}  run_df {row['run_df']:2.0f}  points {row['points']:3d}  "
            f"processes {row['processes']:2d}  pairs {row['pairs']:4d}  "
            f"pooled {row['pooled']:.4f} held {row['coverage']:.3f}  "
            f"{'trusted' if row['trusted'] else 'NOT trusted'}")


def c_row(row):
    """The row of compare_defaults.c's table."""
    bound = TIERS.get(row["kind"], (math.inf,))[row["tier"]]
    below = "INFINITY" if math.isinf(bound) else f"{bound * 1e6:g}e-6"
    def num(v, f):
        return "NAN" if math.isnan(v) else format(v, f)
    return (f"{{CB_CMP_KIND_{row['kind'].upper()}, {below}, {num(row['sd'], '.4f')}, "
            f"{num(row['df'], '.1f')}, {num(row['run_sd'], '.4f')}, {row['run_df']:.0f}, "
            f"{row['processes']}, {row['points']}, {'true' if row['trusted'] else 'false'}, "
            f"{json.dumps(NO_DEFAULT[row['kind']]) if row['kind'] in NO_DEFAULT else 'NULL'}}},")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--c-rows", action="store_true", help="print the rows of compare_defaults.c")
    ap.add_argument("--set", nargs="+", action="append", metavar=("NAME", "DIR"), default=[],
                    help="one more set: processes of one build on one GPU (run directories, "
                         "e.g. scripts/record/aa_pairs.sh's), derived with the recorded ones")
    ap.add_argument("--check", metavar="FILE",
                    help="compare with the table in FILE (compare_defaults.c): exit 1 on a difference")
    args = ap.parse_args()
    for name, *dirs in args.set:
        SETS[name] = dirs
    table = derive()
    for row in table:
        print(c_row(row) if args.c_rows else fmt(row))
    if not args.check:
        return 0
    text = pathlib.Path(args.check).read_text()
    # a row as clang-format leaves it: over several lines, a long string
    # split into adjacent literals
    have = [" ".join(re.sub(r'"\s+"', "", x).split())
            for x in re.findall(r"^\s*(\{CB_CMP_KIND_.*?\},)\s*$", text, re.M | re.S)]
    want = [c_row(r) for r in table]
    if have != want:
        print(f"{args.check}: its table differs from what tests/data give; the rows should be:",
              file=sys.stderr)
        for line in want:
            print("    " + line, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
