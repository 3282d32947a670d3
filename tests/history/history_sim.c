/* history_sim.c - how well `cubench history check` finds change points, on
 * many generated series built from recorded H200 runs. A benchmark, not a
 * test: it prints recall and false-alarm rates (tests/history/README.md).
 *
 *   history_sim AA_DIR SAMPLES_DIR [--series N] [--seed S] [--p-merge P]
 *
 * AA_DIR holds ten processes of one build over the same 200 vecadd points
 * (tests/data/h200-aa-r2: A1..A5, B1..B5, --replicates 5 each); SAMPLES_DIR
 * is one of them with its samples.csv (A1's, decompressed). Per point:
 *   between-run noise  the ten runs' log medians around their mean (scaled
 *                      by sqrt(10/9)), each point's own, bimodality kept:
 *                      a generated run draws one of the ten deviations,
 *                      shrunk by sqrt(1 - 0.3^2), plus a normal part of 0.3
 *                      of the point's spread (a smoothed bootstrap);
 *   within-run noise   the median of a resample (with replacement) of the
 *                      point's recorded samples over their median;
 *   sigma              the sample spread of the ten log medians: the noise
 *                      class of the point (<= 1%, 1-1.5%, ...).
 * A series has 30-60 runs; a planted step multiplies every run from its
 * position on (position uniform in [5, n - 5], or with 2-5 runs after it for
 * the "late" row: one run alone is no change point by default). Throttled runs (3%) are 3-15%
 * slower and carry a throttle word; missing runs (5%) lack the point; a machine or driver change
 * multiplies the runs after it by 3-10% either way and changes the run's GPU UUID or driver;
 * outlier runs (2%, in their own rows) are 10-30% slower with no throttle word to tell. A planted
 * step counts as found when a change of cause `code` has its first bad run within 2 runs of the
 * step; every other code change is a false change point. Each series is generated once and given to
 * every method: cubench       cubench history check as shipped; hunter        the same pipeline
 * (throttled runs set aside, series cut at changes of conditions) with hunter's detector: E-
 *                 divisive, Student's t, p 0.01 to split, 0.001 to keep;
 *   hunter-alone  hunter's detector on every run as it stands: throttled
 *                 runs in, no cut at changes of conditions. */
#include "compare_load.h"
#include "history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N_AA       10
#define POOL       64
#define MAX_RUNS   60
#define MAX_POINTS 512

static const char *const aa_runs[N_AA] = {"A1", "B1", "A2", "B2", "A3",
                                          "B3", "A4", "B4", "A5", "B5"};

typedef struct sim_point {
    const char *benchmark, *axes;
    double level;      /* geometric mean of the ten medians, s      */
    double dev[N_AA];  /* log deviations, scaled                    */
    double sd;         /* spread of the ten log medians             */
    double pool[POOL]; /* within-run factors                       */
} sim_point;

/* ---- random numbers: splitmix64 ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double uniform(void)
{
    return (rng_next() >> 11) * 0x1.0p-53;
}

static int below(int n)
{
    return (int)(uniform() * n);
}

static double normal(void)
{
    double u = uniform(), v = uniform();
    return sqrt(-2.0 * log(u > 0 ? u : 1e-300)) * cos(2.0 * M_PI * v);
}

/* ---- the recorded points ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool load_run(const char *dir, bool samples, cb_cmp_run *run)
{
    cb_cmp_run_init(run);
    run->samples_optional = !samples;
    cb_msg err = {{0}};
    if (cb_cmp_run_load(run, dir, &err)) return true;
    fprintf(stderr, "history_sim: %s\n", err.text);
    return false;
}

/* The within-run factors of a point: medians of resamples over the median. */
static void fill_pool(const cb_cmp_point *p, double *pool)
{
    double *buf = malloc((size_t)p->n * sizeof *buf);
    if (!buf) exit(2);
    memcpy(buf, p->times, (size_t)p->n * sizeof *buf);
    qsort(buf, (size_t)p->n, sizeof *buf, cmp_double);
    double med = buf[p->n / 2];
    for (int k = 0; k < POOL; k++) {
        for (int i = 0; i < p->n; i++)
            buf[i] = p->times[below(p->n)];
        qsort(buf, (size_t)p->n, sizeof *buf, cmp_double);
        pool[k] = buf[p->n / 2] / med;
    }
    free(buf);
}

/* The point's log median in each of the ten runs; false when one lacks it. */
static bool point_logs(const cb_cmp_run *runs, const cb_cmp_point *p0, double *logs)
{
    for (int r = 0; r < N_AA; r++) {
        const cb_cmp_point *p = cb_cmp_run_find(&runs[r], p0->benchmark, p0->axes, NULL);
        if (!p || !p->timed || !(p->facts.median_s > 0.0)) return false;
        logs[r] = log(p->facts.median_s);
    }
    return true;
}

static int load_points(const char *aa_dir, const char *samples_dir, sim_point *pts,
                       cb_cmp_run *runs, cb_cmp_run *samples)
{
    char path[4096];
    for (int r = 0; r < N_AA; r++) {
        snprintf(path, sizeof path, "%s/%s", aa_dir, aa_runs[r]);
        if (!load_run(path, false, &runs[r])) return -1;
    }
    if (!load_run(samples_dir, true, samples)) return -1;
    int n = 0;
    for (int i = 0; i < runs[0].n_points && n < MAX_POINTS; i++) {
        const cb_cmp_point *p0 = &runs[0].points[i];
        const cb_cmp_point *ps = cb_cmp_run_find(samples, p0->benchmark, p0->axes, NULL);
        if (!p0->timed || !ps || ps->n < 10) continue;
        double logs[N_AA], mean = 0.0;
        if (!point_logs(runs, p0, logs)) continue;
        for (int r = 0; r < N_AA; r++)
            mean += logs[r] / N_AA;
        sim_point *s = &pts[n++];
        s->benchmark = p0->benchmark;
        s->axes = p0->axes;
        s->level = exp(mean);
        double ss = 0.0;
        for (int r = 0; r < N_AA; r++)
            ss += (logs[r] - mean) * (logs[r] - mean);
        s->sd = sqrt(ss / (N_AA - 1));
        for (int r = 0; r < N_AA; r++)
            s->dev[r] = (logs[r] - mean) * sqrt((double)N_AA / (N_AA - 1));
        fill_pool(ps, s->pool);
    }
    return n;
}

/* ---- scenarios ---- */

typedef enum env_kind { ENV_NONE, ENV_MACHINE, ENV_DRIVER } env_kind;

typedef struct scenario {
    const char *name;
    double sd_lo, sd_hi; /* the noise class: lo < sigma <= hi */
    double step;         /* planted ratio - 1, 0: none         */
    bool late;           /* the step among the last 5 runs     */
    env_kind env;
    double p_throttle, p_missing;
    double p_outlier; /* runs 10-30% slower with no throttle word */
} scenario;

typedef enum method { M_CUBENCH, M_HUNTER, M_HUNTER_ALONE, M_COUNT } method;
static const char *const method_names[M_COUNT] = {"cubench", "hunter", "hunter-alone"};

/* --p-merge: both methods' threshold (p_split 10 times it, as hunter's). */
static double p_merge_override = 0.0;

typedef struct tally {
    long series, runs, hits, false_cps, env_found, code_at_env, late_regressions;
} tally;

/* One generated series: values, throttle marks and the machine's runs. */
typedef struct gen {
    int n;
    int step_at, env_at;
    cb_hist_run runs[MAX_RUNS];
    cb_hist_value v[MAX_RUNS];
    int n_values;
} gen;

/* Run r of a generated machine; `env` says what has changed by then. */
static void describe_run(cb_hist_run *run, int r, env_kind env)
{
    run->id = r + 1;
    snprintf(run->started, sizeof run->started, "2027-01-01T00:%02d:00Z", r);
    snprintf(run->git_sha, sizeof run->git_sha, "c%04d", r);
    snprintf(run->machine, sizeof run->machine, "sim/H200");
    snprintf(run->gpu_name, sizeof run->gpu_name, "NVIDIA H200");
    snprintf(run->gpu_uuid, sizeof run->gpu_uuid, "GPU-%s", env == ENV_MACHINE ? "b" : "a");
    snprintf(run->driver, sizeof run->driver, "%s", env == ENV_DRIVER ? "580.200" : "580.159");
}

static void generate(const scenario *sc, const sim_point *p, gen *g)
{
    memset(g, 0, sizeof *g);
    g->n = 30 + below(31);
    g->step_at = sc->step == 0.0 ? -1 : sc->late ? g->n - 2 - below(4) : 5 + below(g->n - 9);
    g->env_at = sc->env == ENV_NONE ? -1 : 5 + below(g->n - 9);
    double env_factor = (0.03 + 0.07 * uniform()) * (below(2) ? 1.0 : -1.0);
    for (int r = 0; r < g->n; r++) {
        bool after_env = g->env_at >= 0 && r >= g->env_at;
        describe_run(&g->runs[r], r, after_env ? sc->env : ENV_NONE);
        if (uniform() < sc->p_missing) continue;
        double j = 0.3;
        double x = sqrt(1.0 - j * j) * p->dev[below(N_AA)] + j * p->sd * normal();
        double t = p->level * exp(x) * p->pool[below(POOL)];
        if (g->step_at >= 0 && r >= g->step_at) t *= 1.0 + sc->step;
        if (after_env) t *= 1.0 + env_factor;
        cb_hist_value *v = &g->v[g->n_values++];
        v->run = r;
        snprintf(v->status, sizeof v->status, "ok");
        v->median_s = t;
        v->ci_lo_s = v->ci_hi_s = v->sm_clock_mhz = v->power_w = v->temp_c = NAN;
        if (uniform() < sc->p_outlier) v->median_s *= 1.1 + 0.2 * uniform();
        if (uniform() < sc->p_throttle) {
            v->median_s *= 1.03 + 0.12 * uniform();
            v->throttle = "sw_power_cap";
        }
    }
}

static void score(const gen *g, const cb_hist_check *c, tally *t)
{
    t->series++;
    t->runs += g->n;
    bool hit = false;
    for (int i = 0; i < c->n_changes; i++) {
        const cb_hist_change *ch = &c->changes[i];
        if (ch->cause != CB_HIST_CAUSE_CODE) {
            if (g->env_at >= 0 && ch->run == g->env_at) t->env_found++;
            continue;
        }
        if (g->env_at >= 0 && abs(ch->run - g->env_at) <= 2) t->code_at_env++;
        if (!hit && g->step_at >= 0 && abs(ch->run - g->step_at) <= 2) {
            hit = true;
            t->late_regressions += ch->regression;
        } else {
            t->false_cps++;
        }
    }
    t->hits += hit;
}

static void run_method(gen *g, method m, tally *t)
{
    cb_hist_series s = {"sim", "n=1", "", "device", "sim/H200", g->v, g->n_values};
    cb_hist_value alone[MAX_RUNS];
    cb_hist_run same[MAX_RUNS];
    cb_hist_data d = {g->runs, g->n, &s, 1};
    if (m == M_HUNTER_ALONE) {
        /* what hunter sees: every run as measured, one set of conditions */
        memcpy(alone, g->v, (size_t)g->n_values * sizeof *alone);
        memcpy(same, g->runs, (size_t)g->n * sizeof *same);
        for (int i = 0; i < g->n_values; i++)
            alone[i].throttle = NULL;
        for (int r = 0; r < g->n; r++)
            same[r] = g->runs[0], same[r].id = r + 1;
        s.v = alone;
        d.runs = same;
    }
    cb_hist_check_opts o;
    cb_hist_check_opts_default(&o);
    if (m != M_CUBENCH) o.method = CB_HIST_METHOD_HUNTER; /* hunter's p: the same defaults */
    if (p_merge_override > 0.0) o.p_merge = p_merge_override, o.p_split = 10.0 * p_merge_override;
    cb_hist_check c;
    cb_msg err;
    if (!cb_history_check(&d, &o, &c, &err)) {
        fprintf(stderr, "history_sim: %s\n", err.text);
        exit(2);
    }
    score(g, &c, t);
    cb_hist_check_free(&c);
}

static void run_scenario(const scenario *sc, const sim_point *pts, int n_pts, long series,
                         uint64_t seed)
{
    int pick[MAX_POINTS], n_pick = 0;
    for (int i = 0; i < n_pts; i++)
        if (pts[i].sd > sc->sd_lo && pts[i].sd <= sc->sd_hi) pick[n_pick++] = i;
    if (n_pick == 0) return;
    tally t[M_COUNT];
    memset(t, 0, sizeof t);
    for (long k = 0; k < series; k++) {
        rng_state = seed ^ (0x5851f42d4c957f2dull * (uint64_t)(k + 1));
        gen g;
        generate(sc, &pts[pick[below(n_pick)]], &g);
        for (int m = 0; m < M_COUNT; m++)
            run_method(&g, (method)m, &t[m]);
    }
    for (int m = 0; m < M_COUNT; m++) {
        const tally *x = &t[m];
        printf("| %s | %s | %d | %ld | %ld |", sc->name, method_names[m], n_pick, x->series,
               x->runs);
        if (sc->step != 0.0)
            printf(" %.1f%% |", 100.0 * x->hits / x->series);
        else
            printf(" - |");
        printf(" %.3f |", 1000.0 * x->false_cps / x->runs);
        if (sc->env != ENV_NONE)
            printf(" %.1f%% | %ld |", 100.0 * x->env_found / x->series, x->code_at_env);
        else
            printf(" - | - |");
        if (sc->late)
            printf(" %.1f%% |\n", 100.0 * x->late_regressions / x->series);
        else
            printf(" - |\n");
        fflush(stdout);
    }
}

static void noise_classes(const sim_point *pts, int n)
{
    static const double edges[] = {0.0, 0.005, 0.01, 0.015, 0.02, 0.03, 1.0, INFINITY};
    printf("points by between-run noise (sd of the ten log medians):\n\n| sigma | points |\n"
           "|---|---|\n");
    for (int e = 0; e + 1 < CB_ARRAY_LEN(edges); e++) {
        int c = 0;
        for (int i = 0; i < n; i++)
            c += pts[i].sd > edges[e] && pts[i].sd <= edges[e + 1];
        printf("| %g-%g%% | %d |\n", 100 * edges[e], 100 * edges[e + 1], c);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: history_sim AA_DIR SAMPLES_DIR [--series N] [--seed S] "
                        "[--p-merge P]\n");
        return 2;
    }
    long series = 2000;
    uint64_t seed = 20271201;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--series") == 0) series = strtol(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--seed") == 0) seed = strtoull(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--p-merge") == 0) p_merge_override = strtod(argv[i + 1], NULL);
    }
    static sim_point pts[MAX_POINTS];
    static cb_cmp_run runs[N_AA], samples;
    rng_state = seed;
    int n = load_points(argv[1], argv[2], pts, runs, &samples);
    if (n <= 0) return 2;
    printf("history_sim: %d points, %ld series per row and method, seed %llu", n, series,
           (unsigned long long)seed);
    if (p_merge_override > 0.0)
        printf(", p_merge %g and p_split %g for both methods", p_merge_override,
               10.0 * p_merge_override);
    printf("\n\n");
    noise_classes(pts, n);
    const double T = 0.03, M = 0.05; /* throttled, missing */
    const scenario scenarios[] = {
        {"no step, sigma <= 1%", 0.0, 0.01, 0.0, false, ENV_NONE, T, M, 0},
        {"no step, sigma 1-2%", 0.01, 0.02, 0.0, false, ENV_NONE, T, M, 0},
        {"no step, sigma > 2%", 0.02, INFINITY, 0.0, false, ENV_NONE, T, M, 0},
        {"+3%, sigma <= 1%", 0.0, 0.01, 0.03, false, ENV_NONE, T, M, 0},
        {"+3%, sigma 1-1.5%", 0.01, 0.015, 0.03, false, ENV_NONE, T, M, 0},
        {"+5%, sigma 1-1.5%", 0.01, 0.015, 0.05, false, ENV_NONE, T, M, 0},
        {"+5%, sigma 1.5-2%", 0.015, 0.02, 0.05, false, ENV_NONE, T, M, 0},
        {"+5%, sigma 2-3%", 0.02, 0.03, 0.05, false, ENV_NONE, T, M, 0},
        {"+5%, sigma > 3%", 0.03, INFINITY, 0.05, false, ENV_NONE, T, M, 0},
        {"+3%, sigma <= 1%, no throttled or missing runs", 0.0, 0.01, 0.03, false, ENV_NONE, 0, 0,
         0},
        {"+5%, sigma <= 1%, 2-5 runs after it", 0.0, 0.01, 0.05, true, ENV_NONE, T, M, 0},
        {"machine change, no step, sigma <= 2%", 0.0, 0.02, 0.0, false, ENV_MACHINE, T, M, 0},
        {"driver change, no step, sigma <= 2%", 0.0, 0.02, 0.0, false, ENV_DRIVER, T, M, 0},
        {"driver change and +3%, sigma <= 1%", 0.0, 0.01, 0.03, false, ENV_DRIVER, T, M, 0},
        {"no step, 2% outlier runs (10-30% slower, no throttle word), sigma <= 2%", 0.0, 0.02, 0.0,
         false, ENV_NONE, T, M, 0.02},
        {"+3%, 2% outlier runs, sigma <= 1%", 0.0, 0.01, 0.03, false, ENV_NONE, T, M, 0.02},
    };
    printf("| series | method | points | series | runs | step found (+-2 runs) | false change "
           "points per 1000 runs | condition change reported | code changes at it | flagged "
           "regression |\n|---|---|---|---|---|---|---|---|---|---|\n");
    clock_t t0 = clock();
    for (int i = 0; i < CB_ARRAY_LEN(scenarios); i++)
        run_scenario(&scenarios[i], pts, n, series, seed + (uint64_t)i * 7919);
    printf("\ncpu time %.1f s\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
    for (int r = 0; r < N_AA; r++)
        cb_cmp_run_free(&runs[r]);
    cb_cmp_run_free(&samples);
    return 0;
}
