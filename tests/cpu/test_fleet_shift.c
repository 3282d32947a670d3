/* test_fleet_shift.c - a run's samples against the other runs' medians:
 * the same numbers as compare's cb_shift_estimate given that BASE
 * explicitly (exact and normal paths, with ties), the thinned BASE of a large
 * fleet, a slow run found with its CI, and the cost growing linearly with the
 * number of runs (a quadratic BASE would grow 8x faster in the last check). */
#include "fleet_shift.h"

#include "cb_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static uint64_t rng = 7;

static double uniform(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * 0x1.0p-53;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* T runs of n samples: run r's times are level[r] * (1 + 0.02 (u - 1/2)),
 * rounded to `quantum` seconds when > 0 (ties, as event times have). */
typedef struct fleet_data {
    int runs, n;
    double *times;   /* runs x n */
    double *medians; /* per run  */
} fleet_data;

static fleet_data make_fleet(int runs, int n, double slow_factor, double quantum)
{
    fleet_data d = {runs, n, malloc(sizeof(double) * (size_t)runs * (size_t)n),
                    malloc(sizeof(double) * (size_t)runs)};
    for (int r = 0; r < runs; r++) {
        double level = 1e-3 * (1.0 + 0.02 * (uniform() - 0.5)) * (r == 0 ? slow_factor : 1.0);
        double *t = d.times + (size_t)r * n;
        for (int k = 0; k < n; k++) {
            t[k] = level * (1.0 + 0.02 * (uniform() - 0.5));
            if (quantum > 0) t[k] = quantum * ceil(t[k] / quantum);
        }
        double *sorted = malloc(sizeof(double) * (size_t)n);
        memcpy(sorted, t, sizeof(double) * (size_t)n);
        qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
        d.medians[r] = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
        free(sorted);
    }
    return d;
}

static void free_fleet(fleet_data *d)
{
    free(d->times);
    free(d->medians);
}

/* Every run against the others, both ways; the results must agree. */
static void check_against_compare(int runs, int n, double quantum)
{
    fleet_data d = make_fleet(runs, n, 1.0, quantum);
    cb_fleet_base b;
    cb_msg err;
    CB_CHECK(cb_fleet_base_init(&b, d.medians, runs, 1 << 20, &err));
    double *others = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        int m = 0;
        for (int o = 0; o < runs; o++)
            if (o != r) others[m++] = d.medians[o];
        cb_shift want, got;
        CB_CHECK(cb_shift_estimate(others, m, d.times + (size_t)r * n, n, 0.05, &want, &err));
        CB_CHECK(
            cb_fleet_base_compare(&b, d.medians[r], d.times + (size_t)r * n, n, 0.05, &got, &err));
        CB_CHECK_REL(got.ratio, want.ratio, 1e-12);
        CB_CHECK_EQ_INT(got.ci_rank, want.ci_rank);
        CB_CHECK_REL(got.ci_lo, want.ci_lo, 1e-12);
        CB_CHECK(got.ci_hi == want.ci_hi || fabs(got.ci_hi - want.ci_hi) <= 1e-12 * want.ci_hi);
        CB_CHECK_NEAR(got.p, want.p, 1e-12);
        CB_CHECK_EQ_INT(got.exact, want.exact);
    }
    free(others);
    cb_fleet_base_free(&b);
    free_fleet(&d);
}

/* Beyond max_base runs, BASE is the others at evenly spaced ranks. */
static void check_thinned(void)
{
    int runs = 3001, n = 20, max_base = 64;
    fleet_data d = make_fleet(runs, n, 1.3, 0.0);
    cb_fleet_base b;
    cb_msg err;
    CB_CHECK(cb_fleet_base_init(&b, d.medians, runs, max_base, &err));
    CB_CHECK_EQ_INT(b.m, max_base);
    double *sorted = malloc(sizeof(double) * (size_t)runs);
    double thin[64];
    for (int r = 0; r < runs; r += 250) {
        int m = 0;
        for (int o = 0; o < runs; o++)
            if (o != r) sorted[m++] = d.medians[o];
        qsort(sorted, (size_t)m, sizeof *sorted, cmp_double);
        for (int j = 0; j < max_base; j++)
            thin[j] = sorted[(int)((j + 0.5) * m / max_base)];
        cb_shift want, got;
        CB_CHECK(cb_shift_estimate(thin, max_base, d.times + (size_t)r * n, n, 0.05, &want, &err));
        CB_CHECK(
            cb_fleet_base_compare(&b, d.medians[r], d.times + (size_t)r * n, n, 0.05, &got, &err));
        CB_CHECK_REL(got.ratio, want.ratio, 1e-12);
        CB_CHECK_REL(got.ci_lo, want.ci_lo, 1e-12);
        CB_CHECK_REL(got.ci_hi, want.ci_hi, 1e-12);
        if (r == 0) { /* the slow run: 30% slower, the whole CI above 1.2 */
            CB_CHECK_REL(got.ratio, 1.3, 0.03);
            CB_CHECK(got.ci_lo > 1.2 && got.ci_hi < 1.4);
        } else {
            CB_CHECK(got.ci_lo < 1.0 + 0.03 && got.ci_hi > 1.0 - 0.03);
        }
    }
    free(sorted);
    cb_fleet_base_free(&b);
    free_fleet(&d);
}

static double seconds_for(int runs)
{
    fleet_data d = make_fleet(runs, 5, 1.0, 0.0);
    cb_fleet_base b;
    cb_msg err;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CB_CHECK(cb_fleet_base_init(&b, d.medians, runs, 256, &err));
    for (int r = 0; r < runs; r++) {
        cb_shift s;
        CB_CHECK(
            cb_fleet_base_compare(&b, d.medians[r], d.times + (size_t)r * 5, 5, 0.05, &s, &err));
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cb_fleet_base_free(&b);
    free_fleet(&d);
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}

/* 8x the runs beyond max_base (256 here, to keep the test short): about 8x
 * the time (64x if BASE were all of the others). The limit leaves 3x for a
 * busy machine. */
static void check_linear(void)
{
    double small = seconds_for(1024), large = seconds_for(8192);
    printf("1024 runs: %.3f s, 8192 runs: %.3f s (x%.1f)\n", small, large, large / small);
    CB_CHECK(large < 24.0 * small);
}

int main(void)
{
    check_against_compare(4, 10, 0.0);     /* exact null distribution      */
    check_against_compare(12, 9, 0.0);     /* m n = 99: exact              */
    check_against_compare(40, 200, 0.0);   /* normal approximation         */
    check_against_compare(20, 30, 0.5e-6); /* ties: normal with tie term   */
    check_against_compare(2, 40, 0.0);     /* one other run                */
    check_thinned();
    check_linear();
    return cb_test_finish("test_fleet_shift");
}
