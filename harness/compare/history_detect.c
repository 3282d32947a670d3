/* history_detect.c - change points of one series segment: E-divisive means
 * (Matteson & James 2014, energy distance with alpha = 1) proposes splits,
 * a two-sample test keeps them, as hunter (datastax-labs) does:
 *   1. windows of `window` runs, advancing by half a window (or to the last
 *      change found): E-divisive splits each window top-down, the best
 *      split of any current segment first, while the test at it has
 *      p <= p_split;
 *   2. merge bottom-up over the whole segment: while a change point has
 *      p > p_merge, drop the weakest and re-test its neighbours (each change
 *      point is tested between the change points beside it); cubench
 *      scales p_merge by window / n for a segment of n > window runs;
 *   3. (cubench) move each change point to the least-squares split within
 *      5 runs of it, between its neighbours (E-divisive's statistic weighs
 *      balance as well as the jump; a mean shift's best location is the
 *      least-squares one); drop the two change points around a single run
 *      whose two sides do not differ (an outlier run, not a regression
 *      fixed by the next commit); merge again.
 * The test is Student's t on the two sides (hunter: numpy's std, ddof 0,
 * pooled; cubench: the pooled variance with ddof 1), and for cubench that
 * variance is at least the series' own spread per run, estimated robustly
 * from successive differences (cb_cpd_noise: a step moves one difference,
 * an outlier two) and at least `floor_rel`: a few runs that agree by chance
 * next to a short side, or medians made equal by the 32 ns event grid,
 * cannot make a small step look certain. On series generated from the
 * H200's recorded runs this keeps hunter's recall at the same p thresholds
 * with a third fewer false change points without steps and half as many
 * around real ones (docs/history.md, tests/history/history_sim.c). */
#include "compare_stats.h"
#include "history_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cb_cpd_noise(const double *x, int n)
{
    if (n < 3) return 0.0;
    double *d = malloc((size_t)(n - 1) * sizeof *d);
    if (!d) return 0.0;
    for (int i = 0; i + 1 < n; i++)
        d[i] = fabs(x[i + 1] - x[i]);
    qsort(d, (size_t)(n - 1), sizeof *d, cmp_double);
    int m = n - 1;
    double med = m % 2 ? d[m / 2] : 0.5 * (d[m / 2 - 1] + d[m / 2]);
    free(d);
    return 1.482602218505602 * med / sqrt(2.0);
}

/* Mean and the sum of squared deviations of x[lo, hi). */
static void moments(const double *x, int lo, int hi, double *mean, double *ss)
{
    double s = 0.0;
    for (int i = lo; i < hi; i++)
        s += x[i];
    *mean = s / (hi - lo);
    double q = 0.0;
    for (int i = lo; i < hi; i++)
        q += (x[i] - *mean) * (x[i] - *mean);
    *ss = q;
}

static double two_sided_p(double t, double df)
{
    if (isnan(t)) return 1.0;
    if (isinf(t)) return 0.0;
    return 2.0 * cb_t_cdf(-fabs(t), df);
}

void cb_cpd_test(const double *x, int lo, int at, int hi, double floor_sd, bool student,
                 cb_cpd_step *out)
{
    int m = at - lo, k = hi - at;
    double ml, mr, ssl, ssr;
    moments(x, lo, at, &ml, &ssl);
    moments(x, at, hi, &mr, &ssr);
    *out = (cb_cpd_step){at, lo, hi, mr - ml, NAN, NAN, 1.0};
    if (student) {
        /* hunter: ttest_ind_from_stats with numpy's std (ddof 0) as the std
         * of each side, pooled over m + k - 2 degrees of freedom */
        if (m + k <= 2) return;
        double df = m + k - 2;
        double vp = ((m - 1) * (ssl / m) + (k - 1) * (ssr / k)) / df;
        out->se = sqrt(vp * (1.0 / m + 1.0 / k));
        out->df = df;
    } else {
        double df = m + k - 2 > 1 ? m + k - 2 : 1;
        double vp = (ssl + ssr) / df, f2 = floor_sd * floor_sd;
        if (vp < f2) vp = f2;
        out->se = sqrt(vp * (1.0 / m + 1.0 / k));
        out->df = df;
    }
    if (out->se > 0.0)
        out->p = two_sided_p(out->d / out->se, out->df);
    else
        out->p = out->d == 0.0 ? 1.0 : 0.0;
}

/* E-divisive's statistic at every split of w[0..n) (q[t] for the split
 * before t; NAN outside [min_seg, n - min_seg]), in O(n^2) by moving one
 * value at a time from the right side to the left. */
static void qhat(const double *w, int n, int min_seg, double *q)
{
    double cross = 0.0, within_l = 0.0, within_r = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            within_r += fabs(w[i] - w[j]);
    q[0] = NAN;
    for (int t = 1; t < n; t++) {
        int v = t - 1; /* moves to the left side */
        double to_left = 0.0, to_right = 0.0;
        for (int i = 0; i < v; i++)
            to_left += fabs(w[i] - w[v]);
        for (int j = v + 1; j < n; j++)
            to_right += fabs(w[v] - w[j]);
        cross += to_right - to_left;
        within_l += to_left;
        within_r -= to_right;
        double m = t, k = n - t;
        q[t] = NAN;
        if (t < min_seg || n - t < min_seg) continue;
        double e = 2.0 * cross / (m * k);
        if (m >= 2) e -= 2.0 * within_l / (m * (m - 1));
        if (k >= 2) e -= 2.0 * within_r / (k * (k - 1));
        q[t] = m * k / (m + k) * e;
    }
}

typedef struct split_state {
    const double *x;
    int lo, hi; /* the window */
    const cb_cpd_opts *o;
    double floor_sd;
    double *q; /* scratch, window length + 1 */
    int *cps;  /* sorted, absolute */
    int n_cps;
} split_state;

/* The best split of [a, b): its position, or -1; *value its statistic. */
static int best_split(split_state *s, int a, int b, double *value)
{
    int n = b - a;
    *value = -INFINITY;
    if (n < 2 * s->o->min_seg || n < 2) return -1;
    qhat(s->x + a, n, s->o->min_seg, s->q);
    int best = -1;
    for (int t = 1; t < n; t++)
        if (!isnan(s->q[t]) && s->q[t] > *value) *value = s->q[t], best = t;
    return best < 0 ? -1 : a + best;
}

static void insert_sorted(int *v, int *n, int x)
{
    int i = *n;
    while (i > 0 && v[i - 1] > x) {
        v[i] = v[i - 1];
        i--;
    }
    v[i] = x;
    (*n)++;
}

/* Split the window top-down while the best split is significant. The
 * segments' best splits are kept (one per segment start) so that only the
 * two new segments are recomputed after a split. */
static void split_window(split_state *s, int *best_at, double *best_q)
{
    int n = s->hi - s->lo;
    /* best_at/best_q are indexed by segment start - lo; -2: not computed */
    for (int i = 0; i < n; i++)
        best_at[i] = -2;
    for (;;) {
        int seg_lo = s->lo, pick = -1, pick_lo = 0, pick_hi = 0;
        double pick_q = -INFINITY;
        for (int c = 0; c <= s->n_cps; c++) {
            int seg_hi = c < s->n_cps ? s->cps[c] : s->hi;
            int slot = seg_lo - s->lo;
            if (best_at[slot] == -2) best_at[slot] = best_split(s, seg_lo, seg_hi, &best_q[slot]);
            if (best_at[slot] >= 0 && best_q[slot] > pick_q)
                pick_q = best_q[slot], pick = best_at[slot], pick_lo = seg_lo, pick_hi = seg_hi;
            seg_lo = seg_hi;
        }
        if (pick < 0) return;
        cb_cpd_step st;
        cb_cpd_test(s->x, pick_lo, pick, pick_hi, s->floor_sd, s->o->student, &st);
        if (!(st.p <= s->o->p_split)) return;
        insert_sorted(s->cps, &s->n_cps, pick);
        best_at[pick_lo - s->lo] = -2;
        best_at[pick - s->lo] = -2;
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Candidates from overlapping windows (hunter's `split`), sorted, unique,
 * into out (room for 2 n + window entries: windows overlap by half). */
static int candidates(const double *x, int n, const cb_cpd_opts *o, double floor_sd, int *out,
                      bool *oom)
{
    int w = o->window < 4 ? 4 : o->window, step = w / 2;
    double *q = malloc((size_t)(w + 1) * sizeof *q), *best_q = malloc((size_t)w * sizeof *best_q);
    int *cps = malloc((size_t)w * sizeof *cps), *best_at = malloc((size_t)w * sizeof *best_at);
    int count = 0;
    *oom = !q || !best_q || !cps || !best_at;
    for (int start = 0; !*oom && start < n;) {
        int end = start + w < n ? start + w : n;
        split_state s = {x, start, end, o, floor_sd, q, cps, 0};
        split_window(&s, best_at, best_q);
        memcpy(out + count, s.cps, (size_t)s.n_cps * sizeof *out);
        count += s.n_cps;
        int last = s.n_cps ? s.cps[s.n_cps - 1] : 0;
        start = last > start + step ? last : start + step;
    }
    free(q), free(best_q), free(cps), free(best_at);
    qsort(out, (size_t)count, sizeof *out, cmp_int);
    int u = 0;
    for (int i = 0; i < count; i++)
        if (u == 0 || out[u - 1] != out[i]) out[u++] = out[i];
    return u;
}

/* The test of change point i between its neighbours. */
static void test_between(const double *x, int n, const int *cps, int k, int i, double floor_sd,
                         bool student, cb_cpd_step *out)
{
    int lo = i > 0 ? cps[i - 1] : 0, hi = i + 1 < k ? cps[i + 1] : n;
    cb_cpd_test(x, lo, cps[i], hi, floor_sd, student, out);
}

/* hunter's `merge`: drop the weakest change point while one has p > p_merge. */
static int merge(const double *x, int n, int *cps, int k, const cb_cpd_opts *o, double floor_sd,
                 cb_cpd_step *st)
{
    for (int i = 0; i < k; i++)
        test_between(x, n, cps, k, i, floor_sd, o->student, &st[i]);
    /* (cubench) a series longer than a window offers a candidate per half
     * window: the bar rises with its length, so the false change points per
     * run of a 1,000-run history stay at those of a 50-run one */
    double p_keep = o->p_merge;
    if (!o->student && n > o->window) p_keep *= (double)o->window / n;
    while (k > 0) {
        int worst = 0;
        for (int i = 1; i < k; i++)
            if (st[i].p > st[worst].p) worst = i;
        if (st[worst].p <= p_keep) break;
        memmove(cps + worst, cps + worst + 1, (size_t)(k - worst - 1) * sizeof *cps);
        memmove(st + worst, st + worst + 1, (size_t)(k - worst - 1) * sizeof *st);
        k--;
        if (worst > 0) test_between(x, n, cps, k, worst - 1, floor_sd, o->student, &st[worst - 1]);
        if (worst < k) test_between(x, n, cps, k, worst, floor_sd, o->student, &st[worst]);
    }
    return k;
}

/* Move each change point to the least-squares split within 5 runs. */
static void refine(const double *x, int n, int *cps, int k, int min_seg)
{
    for (int i = 0; i < k; i++) {
        int lo = i > 0 ? cps[i - 1] : 0, hi = i + 1 < k ? cps[i + 1] : n;
        int from = cps[i] - 5 > lo + min_seg ? cps[i] - 5 : lo + min_seg;
        int to = cps[i] + 5 < hi - min_seg ? cps[i] + 5 : hi - min_seg;
        double best = INFINITY;
        for (int t = from; t <= to; t++) {
            double ml, mr, ssl, ssr;
            moments(x, lo, t, &ml, &ssl);
            moments(x, t, hi, &mr, &ssr);
            if (ssl + ssr < best) best = ssl + ssr, cps[i] = t;
        }
    }
}

/* A single run between two change points whose sides do not differ is an
 * outlier, not two changes: both change points go. `buf` has room for n. */
static int drop_outliers(const double *x, int n, int *cps, int k, const cb_cpd_opts *o,
                         double floor_sd, double *buf)
{
    for (int i = 0; i + 1 < k;) {
        if (cps[i + 1] - cps[i] != 1) {
            i++;
            continue;
        }
        int lo = i > 0 ? cps[i - 1] : 0, hi = i + 2 < k ? cps[i + 2] : n;
        int left = cps[i] - lo, right = hi - cps[i + 1];
        memcpy(buf, x + lo, (size_t)left * sizeof *buf);
        memcpy(buf + left, x + cps[i + 1], (size_t)right * sizeof *buf);
        cb_cpd_step st;
        cb_cpd_test(buf, 0, left, left + right, floor_sd, false, &st);
        if (st.p <= o->p_merge) {
            i++;
            continue;
        }
        memmove(cps + i, cps + i + 2, (size_t)(k - i - 2) * sizeof *cps);
        k -= 2;
    }
    return k;
}

int cb_cpd_detect(const double *x, int n, const cb_cpd_opts *o, cb_cpd_step *out)
{
    if (n < 2 * (o->min_seg > 1 ? o->min_seg : 1)) return 0;
    double floor_sd = 0.0;
    if (!o->student) {
        floor_sd = cb_cpd_noise(x, n);
        if (floor_sd < o->floor_rel) floor_sd = o->floor_rel;
    }
    int room = 2 * n + (o->window > 4 ? o->window : 4);
    int *cps = malloc((size_t)room * sizeof *cps);
    cb_cpd_step *st = malloc((size_t)room * sizeof *st);
    double *buf = malloc((size_t)n * sizeof *buf);
    bool oom = !cps || !st || !buf;
    int k = oom ? 0 : candidates(x, n, o, floor_sd, cps, &oom);
    if (!oom) k = merge(x, n, cps, k, o, floor_sd, st);
    if (!oom && !o->student && k > 0) {
        /* the moved change points are tested again, between their new
         * neighbours, and the weak ones dropped as before */
        refine(x, n, cps, k, o->min_seg);
        k = drop_outliers(x, n, cps, k, o, floor_sd, buf);
        k = merge(x, n, cps, k, o, floor_sd, st);
    }
    if (!oom) memcpy(out, st, (size_t)k * sizeof *out);
    free(cps), free(st), free(buf);
    return oom ? -1 : k;
}
