/* counters_aggregate.c - one value per metric from a point's kernels.
 *
 * The range profiler gives one range per kernel (auto ranges); a row
 * holds one value per metric. A count is additive over time, so the
 * point's count is the sum of its kernels' (dram__bytes.sum of a transpose
 * and a GEMM is both kernels' bytes; for a .max or .min rollup, the
 * largest or smallest unit's count, the sum is a bound, not the exact
 * figure). A rate or a share of peak is a count over elapsed time or
 * cycles, so the point's is the sum of the counts over the sum of the
 * times: the mean of the kernels' values weighted by their durations
 * (gpu__time_duration.sum). For `X.pct_of_peak_sustained_elapsed` that is
 * exact when the unit's clock is the same in every kernel; for
 * `..._active` figures the weight is the elapsed time, not each kernel's
 * active cycles, so it is close rather than exact, and a throughput (the
 * largest of several sub-throughputs per kernel) may read a little higher
 * than one taken over the whole run. With one kernel every value is
 * CUPTI's own. */
#include "counters_session.h"

#include <math.h>
#include <string.h>

cb_counters_combine cb_counters_combine_of(const char *name)
{
    static const char *const rollups[] = {"sum", "avg", "min", "max"};
    const char *dot = name ? strrchr(name, '.') : NULL;
    if (!dot) return CB_COUNTERS_COMBINE_TIME_MEAN;
    for (int i = 0; i < CB_ARRAY_LEN(rollups); i++)
        if (strcmp(dot + 1, rollups[i]) == 0) return CB_COUNTERS_COMBINE_SUM;
    return CB_COUNTERS_COMBINE_TIME_MEAN;
}

const char *cb_counters_combine_name(cb_counters_combine how)
{
    return how == CB_COUNTERS_COMBINE_SUM ? "sum" : "time-weighted mean";
}

static double sum_over_ranges(const double *per_range, int n, int ranges, int i)
{
    double s = 0;
    for (int r = 0; r < ranges; r++) {
        double x = per_range[(size_t)r * (size_t)n + (size_t)i];
        if (!isfinite(x)) return NAN;
        s += x;
    }
    return s;
}

static double time_mean(const double *per_range, int n, int ranges, int i, int time_index)
{
    if (time_index < 0 || time_index >= n) return NAN;
    double num = 0, den = 0;
    for (int r = 0; r < ranges; r++) {
        const double *row = per_range + (size_t)r * (size_t)n;
        double x = row[i], w = row[time_index];
        if (!isfinite(x) || !isfinite(w) || w <= 0) continue;
        num += w * x;
        den += w;
    }
    return den > 0 ? num / den : NAN;
}

void cb_counters_aggregate(const char *const *names, int n, const double *per_range, int ranges,
                           int time_index, double *out)
{
    for (int i = 0; i < n; i++) {
        if (ranges <= 0)
            out[i] = NAN;
        else if (ranges == 1)
            out[i] = per_range[i];
        else if (cb_counters_combine_of(names[i]) == CB_COUNTERS_COMBINE_SUM)
            out[i] = sum_over_ranges(per_range, n, ranges, i);
        else
            out[i] = time_mean(per_range, n, ranges, i, time_index);
    }
}
