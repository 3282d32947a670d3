/* compare_hl.c - order statistics of pairwise differences; the shift estimate.
 *
 * Every difference is computed by diff() and compared as computed, never by
 * rearranging the inequality: correctly rounded subtraction is monotone, so
 * diff(i, j) is non-increasing in i and non-decreasing in j exactly, and the
 * two-pointer walks below count exactly what a full sort would order.
 */
#include "compare_hl.h"

#include "compare_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline double diff(const double *x, const double *y, int i, int j)
{
    return y[j] - x[i];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* How many pairs have diff < t (*lt) and diff <= t (*le). For column j the
 * rows with diff <= t form a suffix [s_le, m), those with diff < t a shorter
 * suffix [s_lt, m); both starts only grow with j. */
static void count_around(const double *x, int m, const double *y, int n, double t, int64_t *lt,
                         int64_t *le)
{
    int s_lt = 0, s_le = 0;
    *lt = *le = 0;
    for (int j = 0; j < n; j++) {
        while (s_le < m && diff(x, y, s_le, j) > t)
            s_le++;
        if (s_lt < s_le) s_lt = s_le;
        while (s_lt < m && diff(x, y, s_lt, j) >= t)
            s_lt++;
        *le += m - s_le;
        *lt += m - s_lt;
    }
}

/* The smallest difference strictly above v (+inf if none): in column j the
 * rows with diff > v are a prefix [0, a), whose smallest is row a - 1. */
static double next_diff_above(const double *x, int m, const double *y, int n, double v)
{
    double best = INFINITY;
    int a = 0;
    for (int j = 0; j < n; j++) {
        while (a < m && diff(x, y, a, j) > v)
            a++;
        if (a > 0 && diff(x, y, a - 1, j) < best) best = diff(x, y, a - 1, j);
    }
    return best;
}

/* splitmix64: a fixed seed makes every comparison reproducible. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Pivots come from a sorted random sample of the candidates (with
 * replacement), taken on both sides of where the k-th should sit
 * (Floyd-Rivest): most rounds bracket it and keep about
 * 2 * PIVOT_SPREAD / PIVOT_SAMPLE of the candidates. */
#define PIVOT_SAMPLE 256
#define PIVOT_SPREAD 32

typedef struct select_state {
    const double *x, *y;
    int m, n;
    int64_t k;
    double lo, hi; /* the answer lies strictly inside (lo, hi) */
    bool found;
    double answer;
} select_state;

/* Try pivot p (a candidate, so lo < p < hi): either it is the answer, or it
 * becomes a new bound. Returns false when p was not strictly inside. */
static bool try_pivot(select_state *st, double p)
{
    if (!(p > st->lo && p < st->hi)) return false;
    int64_t lt, le;
    count_around(st->x, st->m, st->y, st->n, p, &lt, &le);
    if (lt < st->k && st->k <= le) {
        st->found = true;
        st->answer = p;
    } else if (le < st->k) {
        st->lo = p;
    } else {
        st->hi = p;
    }
    return true;
}

/* Invariant: the answer v lies strictly inside (lo, hi), i.e. fewer than k
 * differences are <= lo and at least k are < hi. The candidates are the
 * differences inside (lo, hi): rows [first[j], past[j]) of column j. Each
 * round tests at least one candidate, which then leaves the set. */
bool cb_hl_kth_diff(const double *x, int m, const double *y, int n, int64_t k, int64_t gather_max,
                    double *out, cb_msg *err)
{
    if (gather_max < 1) gather_max = 1;
    int *first = malloc((size_t)n * sizeof *first);
    int *past = malloc((size_t)n * sizeof *past);
    int64_t *cum = malloc(((size_t)n + 1) * sizeof *cum);
    double *buf = NULL;
    bool ok = false;
    if (!first || !past || !cum) goto oom;
    select_state st = {.x = x, .y = y, .m = m, .n = n, .k = k, .lo = -INFINITY, .hi = INFINITY};
    uint64_t rng = 0x5EEDC0DEull;
    for (;;) {
        int a = 0, b = 0;
        int64_t below = 0;
        cum[0] = 0;
        for (int j = 0; j < n; j++) {
            while (a < m && diff(x, y, a, j) > st.lo)
                a++; /* rows [0, a) are > lo */
            while (b < m && diff(x, y, b, j) >= st.hi)
                b++; /* rows [b, m) are < hi */
            past[j] = a;
            first[j] = b < a ? b : a;
            below += m - a;
            cum[j + 1] = cum[j] + (past[j] - first[j]);
        }
        int64_t total = cum[n], rank = k - below; /* the answer's rank among candidates */
        if (total < 1 || rank < 1 || rank > total) {
            cb_msg_set(err, "compare: internal error in pairwise selection");
            goto out;
        }
        if (total <= gather_max) {
            buf = malloc((size_t)total * sizeof *buf);
            if (!buf) goto oom;
            int64_t c = 0;
            for (int j = 0; j < n; j++)
                for (int i = first[j]; i < past[j]; i++)
                    buf[c++] = diff(x, y, i, j);
            qsort(buf, (size_t)total, sizeof *buf, cmp_double);
            *out = buf[rank - 1];
            ok = true;
            goto out;
        }
        double sample[PIVOT_SAMPLE];
        int size = total < PIVOT_SAMPLE ? (int)total : PIVOT_SAMPLE;
        int spread = size * PIVOT_SPREAD / PIVOT_SAMPLE;
        if (spread < 1) spread = 1;
        for (int s = 0; s < size; s++) {
            int64_t u = (int64_t)(next_random(&rng) % (uint64_t)total);
            int lo_j = 0, hi_j = n; /* the column j with cum[j] <= u < cum[j + 1] */
            while (hi_j - lo_j > 1) {
                int mid = lo_j + (hi_j - lo_j) / 2;
                if (cum[mid] <= u)
                    lo_j = mid;
                else
                    hi_j = mid;
            }
            sample[s] = diff(x, y, first[lo_j] + (int)(u - cum[lo_j]), lo_j);
        }
        qsort(sample, (size_t)size, sizeof *sample, cmp_double);
        int at = (int)((double)rank / (double)total * size);
        int below_at = at - spread, above_at = at + spread;
        bool tried = false;
        if (below_at >= 0) tried = try_pivot(&st, sample[below_at]);
        if (!st.found && above_at < size) tried = try_pivot(&st, sample[above_at]) || tried;
        if (!st.found && !tried) try_pivot(&st, sample[at < size ? at : size - 1]);
        if (st.found) {
            *out = st.answer;
            ok = true;
            goto out;
        }
    }
oom:
    cb_msg_set(err, "compare: out of memory selecting a pairwise difference");
out:
    free(first), free(past), free(cum), free(buf);
    return ok;
}

static double *sorted_logs(const double *t, int n)
{
    double *v = malloc((size_t)n * sizeof *v);
    if (!v) return NULL;
    for (int i = 0; i < n; i++)
        v[i] = log(t[i]);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v;
}

/* The order statistics ranks[0..count) of the differences, by sorting all of
 * them (small m n) or by selection. */
static bool diff_order_stats(const double *x, int m, const double *y, int n, const int64_t *ranks,
                             int count, double *vals, cb_msg *err)
{
    int64_t mn = (int64_t)m * n;
    if (mn <= CB_HL_SORT_MAX) {
        double *d = malloc((size_t)mn * sizeof *d);
        if (!d) {
            cb_msg_set(err, "compare: out of memory for %lld pairwise differences", (long long)mn);
            return false;
        }
        int64_t c = 0;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++)
                d[c++] = diff(x, y, i, j);
        qsort(d, (size_t)mn, sizeof *d, cmp_double);
        for (int r = 0; r < count; r++)
            vals[r] = d[ranks[r] - 1];
        free(d);
        return true;
    }
    /* Gather when the candidates fit in about the memory of the inputs. */
    int64_t gather = 4 * ((int64_t)m + n);
    if (gather < 4096) gather = 4096;
    for (int r = 0; r < count; r++) {
        if (r > 0 && ranks[r] == ranks[r - 1]) {
            vals[r] = vals[r - 1];
        } else if (r > 0 && ranks[r] == ranks[r - 1] + 1) {
            /* the next order statistic: a tie with the last, or the next value up */
            int64_t lt, le;
            count_around(x, m, y, n, vals[r - 1], &lt, &le);
            vals[r] = le >= ranks[r] ? vals[r - 1] : next_diff_above(x, m, y, n, vals[r - 1]);
        } else if (!cb_hl_kth_diff(x, m, y, n, ranks[r], gather, &vals[r], err)) {
            return false;
        }
    }
    return true;
}

bool cb_shift_estimate(const double *base, int m, const double *cand, int n, double alpha,
                       cb_shift *out, cb_msg *err)
{
    double *x = sorted_logs(base, m);
    double *y = sorted_logs(cand, n);
    double *cdf = NULL;
    bool ok = false;
    if (!x || !y) {
        cb_msg_set(err, "compare: out of memory");
        goto done;
    }
    int64_t mn = (int64_t)m * n;
    cb_mwu t;
    if (mn <= CB_MWU_EXACT_MAX) {
        /* The exact distribution is only needed without ties; check first. */
        cb_mwu_test(x, m, y, n, NULL, &t);
        if (t.tie_term == 0.0) {
            cdf = cb_mwu_exact_cdf(m, n);
            if (!cdf) {
                cb_msg_set(err, "compare: out of memory");
                goto done;
            }
            cb_mwu_test(x, m, y, n, cdf, &t);
        }
    } else {
        cb_mwu_test(x, m, y, n, NULL, &t);
    }
    out->u = t.u;
    out->p = t.p;
    out->exact = t.exact;
    out->ci_rank = cb_mwu_ci_rank(m, n, alpha, cdf, t.tie_term);

    int64_t ranks[4];
    int count = 0;
    ranks[count++] = (mn + 1) / 2; /* the lower middle; equal to the upper when mn is odd */
    ranks[count++] = mn / 2 + 1;
    if (out->ci_rank >= 1) {
        ranks[count++] = out->ci_rank;
        ranks[count++] = mn + 1 - out->ci_rank;
    }
    double vals[4];
    if (!diff_order_stats(x, m, y, n, ranks, count, vals, err)) goto done;
    out->ratio = exp(0.5 * (vals[0] + vals[1]));
    out->ci_lo = out->ci_rank >= 1 ? exp(vals[2]) : 0.0;
    out->ci_hi = out->ci_rank >= 1 ? exp(vals[3]) : INFINITY;
    ok = true;
done:
    free(x), free(y), free(cdf);
    return ok;
}
