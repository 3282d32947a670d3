#!/usr/bin/env python3
"""Replay cubench's stopping rule over recorded samples, with and without
the early stop of hopeless rounds, to see what that stop saves and what it
cuts.

    stopping_replay.py RUN_DIR... [--share 0.5] [--factor 3]

Each RUN_DIR is a `cubench run` directory with samples.csv (or .csv.xz), or
a folder of them (searched recursively). Every round of every timed row is
replayed sample by sample in the order taken: the rule as harness/common/
stats.c codes it (median CI from the effective sample size, checked after
every sample below 64, then every 8th, then every 2^j-th), and the early
stop from `share` of the round's budget on. A round's clock is its row's
sampling time spread evenly over its samples, and its budget is the run's
1 s (the first of auto rounds) or a third of it (the others), as the runner
shares it. Prints the rounds by how they end, the sampling time saved, and
each round the early stop would cut that the rule later let converge.
"""
import argparse, collections, csv, glob, lzma, math, os, re, sys

LEVEL = 0.95
_ranks = {}


def ranks(m):
    """The order statistics of the 95% median CI for m samples (or None)."""
    if m not in _ranks:
        tail, cdf, best = (1 - LEVEL) / 2, 0.0, 0
        for j in range(1, m // 2 + 1):
            cdf += math.exp(math.lgamma(m + 1) - math.lgamma(j) - math.lgamma(m - j + 2) - m * math.log(2))
            if cdf > tail:
                break
            best = j
        _ranks[m] = (best, m - best + 1) if best else None
    return _ranks[m]


def quantile6(s, p):
    n, pos = len(s), p * (len(s) + 1)
    if pos <= 1:
        return s[0]
    if pos >= n:
        return s[-1]
    i = int(math.floor(pos))
    return s[i - 1] + (pos - i) * (s[i] - s[i - 1])


def median7(s):
    pos = 0.5 * (len(s) - 1)
    i = int(math.floor(pos))
    return s[i] if i + 1 >= len(s) else s[i] + (pos - i) * (s[i + 1] - s[i])


def summary(x):
    """(n_eff, ci_rel_half) as cb_stats_summarise computes them."""
    n = len(x)
    s = sorted(x)
    med = median7(s)
    n_eff = n
    if n >= 3:
        mean = sum(x) / n
        d = [v - mean for v in x]
        den = sum(v * v for v in d)
        if den > 0:
            rho = sum(d[i] * d[i + 1] for i in range(n - 1)) / den
            rho += (1 + 3 * rho) / n
            if rho > 0:
                rho = min(rho, 0.95)
                n_eff = n * (1 - rho) / (1 + rho)
    m = int(math.floor(n_eff)) if n_eff < n else n
    r = ranks(m)
    if not r or not med > 0:
        return n_eff, math.inf
    return n_eff, (quantile6(s, r[1] / (m + 1)) - quantile6(s, r[0] / (m + 1))) / (2 * med)


def checkpoints(n_max, min_samples):
    every = 8
    for n in range(min_samples, n_max + 1):
        while every * 64 <= n:
            every *= 2
        if n < 64 or n % every == 0:
            yield n


def replay(x, target, budget, dt, share, factor, min_samples=10):
    """How a round of samples x ends: ('converged'|'futile'|'as recorded', n)."""
    for n in checkpoints(len(x), min_samples):
        n_eff, half = summary(x[:n])
        if n_eff >= min_samples and half <= target:
            return 'converged', n
        elapsed = n * dt
        if factor and elapsed >= share * budget and n >= 2 * min_samples and math.isfinite(half):
            if half * math.sqrt(min(elapsed / budget, 1.0)) > factor * target:
                return 'futile', n
    return 'as recorded', len(x)


def open_csv(path):
    return lzma.open(path, 'rt') if path.endswith('.xz') else open(path, newline='')


def run_dirs(paths):
    for p in paths:
        for s in sorted(glob.glob(os.path.join(p, '**', 'samples.csv*'), recursive=True)):
            yield os.path.dirname(s), s


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('dirs', nargs='+')
    ap.add_argument('--share', type=float, default=0.5)
    ap.add_argument('--factor', type=float, default=3.0)
    ap.add_argument('--budget', type=float, default=1.0, help='the run\'s --max-time-per-point (s)')
    a = ap.parse_args()
    ends, total, saved, cut = collections.Counter(), 0.0, 0.0, []
    rows_by, flipped = collections.Counter(), []
    for d, samples_path in run_dirs(a.dirs):
        results = [f for f in (os.path.join(d, 'results.csv'), os.path.join(d, 'results.csv.xz')) if os.path.exists(f)]
        if not results:
            continue
        rows = {r['benchmark'] + '|' + r['axes']: r for r in csv.DictReader(open_csv(results[0]))}
        rounds = collections.defaultdict(lambda: collections.defaultdict(list))
        for s in csv.DictReader(open_csv(samples_path)):
            rounds[s['benchmark'] + '|' + s['axes']][int(s['replicate'] or 0)].append(float(s['time_s']))
        for key, by_round in rounds.items():
            kept_plain, kept_early, budget_plain, budget_early = [], [], 0, 0
            r = rows.get(key)
            if not r or r['status'] not in ('ok', 'noisy') or not float(r['sampling_s'] or 0):
                continue
            dt = float(r['sampling_s']) / int(r['samples'])
            m = re.search(r'CI target \+-([0-9.]+)%', r['note'])
            target = max(0.005, float(m.group(1)) / 100 if m else 0)
            for rnd, x in by_round.items():
                budget = a.budget if rnd == 0 or len(by_round) == 1 else a.budget / len(by_round)
                plain, _ = replay(x, target, budget, dt, a.share, 0)
                end, n = replay(x, target, budget, dt, a.share, a.factor)
                total += len(x) * dt
                ends[(plain, end)] += 1
                kept_plain += x
                kept_early += x[:n]
                budget_plain += plain != 'converged'
                budget_early += end != 'converged'
                if end == 'futile':
                    saved += (len(x) - n) * dt
                    if plain == 'converged':
                        cut.append(f'{d} {key} round {rnd}: cut at {n} of {len(x)} samples')
            # The row: ok when every round converged, or (several rounds) when
            # the pooled interval meets the target (runner_point.c).
            def row_ok(kept, budget_ended):
                if not budget_ended:
                    return True
                return len(by_round) > 1 and summary(kept)[1] <= target
            rows_by[(row_ok(kept_plain, budget_plain), row_ok(kept_early, budget_early))] += 1
            if row_ok(kept_plain, budget_plain) and not row_ok(kept_early, budget_early):
                flipped.append(f'{d} {key}: ok without the early stop, noisy with it')
    print(f'share {a.share}, factor {a.factor}: rounds by (end without, end with the early stop):')
    for k, v in sorted(ends.items()):
        print(f'  {k[0]:>12} -> {k[1]:<12} {v}')
    print(f'sampling {total:.1f} s, saved {saved:.1f} s; rounds cut that converged later: {len(cut)}')
    for c in cut:
        print('  ' + c)
    print('rows by (ok without, ok with the early stop): ' +
          ', '.join(f'{k}: {v}' for k, v in sorted(rows_by.items())))
    for f in flipped:
        print('  ' + f)


if __name__ == '__main__':
    sys.exit(main())
