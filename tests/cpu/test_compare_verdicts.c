/* test_compare_verdicts.c - verdicts on synthetic runs of known structure
 * (test_compare_sim.h): the shapes one by one, the unit and its floors, the
 * family-wise false-alarm rate over many A/A pairs (a between-process
 * component, bimodal processes, autocorrelated samples), the power at the
 * reported MDE for planted 5% and 10% slowdowns, the coverage of the CIs,
 * and the result's counts, order and geometric means. */
/* test links: cubench_compare */
#include "compare.h"

#include "compare_defaults.h"

#include "cb_test.h"
#include "test_compare_sim.h"

#include <stdlib.h>

/* The release build checks the rates over the full simulation (about 3 s);
 * under AddressSanitizer, 15 times slower, a tenth of the pairs checks the
 * same code paths. */
#if defined(__SANITIZE_ADDRESS__)
#define SIM_SCALE 10
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_SCALE 10
#endif
#endif
#ifndef SIM_SCALE
#define SIM_SCALE 1
#endif

/* A point with explicit rounds: rounds[r][k], `rounds` x `n` times, added to
 * `run` as one directory. */
static cb_cmp_point *explicit_point(cb_cmp_run *run, const char *timer, int batch,
                                    const double *times, int rounds, int n)
{
    cb_msg err;
    CB_CHECK(cb_cmp_run_begin_dir(run, "x", &err));
    cb_cmp_point *p = cb_cmp_run_add_point(run, "fam/x", "n=1", "ok", NULL, &err);
    CB_CHECK(p != NULL);
    if (!p) return NULL;
    snprintf(p->timer, sizeof p->timer, "%s", timer);
    p->batch = batch;
    for (int s = 0; s < rounds * n; s++)
        CB_CHECK(cb_cmp_point_add_time(p, times[s], s / n, &err));
    return p;
}

/* rounds x n times around `median`: round offsets `round_sd`, noise `sd`. */
static void draw(double *t, int rounds, int n, double median, double round_sd, double sd)
{
    for (int r = 0; r < rounds; r++) {
        double level = median * exp(round_sd * sim_normal());
        for (int k = 0; k < n; k++)
            t[r * n + k] = level * exp(sd * sim_normal());
    }
}

/* Compare one point (given as times) and return its row. */
static cb_compare_row one_point(const cb_compare_opts *o, const char *timer, int batch,
                                const double *b, const double *c, int rounds, int n, int dirs)
{
    cb_cmp_run base, cand;
    cb_cmp_run_init(&base);
    cb_cmp_run_init(&cand);
    for (int d = 0; d < dirs; d++) {
        explicit_point(&base, timer, batch, b + (size_t)d * rounds * n, rounds, n);
        explicit_point(&cand, timer, batch, c + (size_t)d * rounds * n, rounds, n);
    }
    cb_compare_result r;
    cb_msg err;
    cb_compare_row row = {0};
    if (cb_compare_runs(&base, &cand, o, &r, &err)) {
        CB_CHECK(r.n_rows == 1);
        row = r.rows[0];
        row.benchmark = row.axes = NULL;
        row.base_point = row.new_point = NULL;
        row.device = NULL;
        cb_compare_result_free(&r);
    }
    cb_cmp_run_free(&base);
    cb_cmp_run_free(&cand);
    return row;
}

/* The shapes' points: R rounds of N samples, D runs a side where a shape
 * has several; b is the base, c the candidate. */
enum { R = 5, N = 20, D = 4 };
static double b[D * R * N], c[D * R * N];

/* One run of rounds a side, event-timed, one sample a launch. */
static cb_compare_row rounds_point(const cb_compare_opts *o, const double *base, const double *cand)
{
    return one_point(o, "event", 1, base, cand, R, N, 1);
}

/* Base and candidate drawn around their medians, with the rounds' usual
 * offsets (0.2%) and noise (0.5%), and compared. */
static cb_compare_row drawn_point(const cb_compare_opts *o, double base_median, double cand_median)
{
    draw(b, R, N, base_median, 0.002, 0.005);
    draw(c, R, N, cand_median, 0.002, 0.005);
    return rounds_point(o, b, c);
}

/* --between-run 0: rounds alone, so the shapes test the rounds' own
 * arithmetic; the default widening has its own checks further on. */
static cb_compare_opts rounds_alone(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    o.between_run_sd = 0.0;
    return o;
}

/* Rounds alone: identical, 10% slower and faster, 2%, too few samples. */
static void shapes_rounds(void)
{
    cb_compare_opts o = rounds_alone();
    cb_compare_row row;

    /* identical: same, on rounds */
    draw(b, R, N, 100e-6, 0.002, 0.005);
    memcpy(c, b, sizeof b);
    row = rounds_point(&o, b, c);
    CB_CHECK(row.verdict == CB_VERDICT_SAME);
    CB_CHECK(row.base.basis == CB_BASIS_ROUNDS && row.base.units == R &&
             row.widening == CB_WIDEN_NONE);
    CB_CHECK_NEAR(row.ratio, 1.0, 1e-12);
    CB_CHECK(row.mde > o.delta && row.mde < 0.06);

    /* 10% slower, and the mirror */
    draw(c, R, N, 110e-6, 0.002, 0.005);
    row = rounds_point(&o, b, c);
    CB_CHECK_MSG(row.verdict == CB_VERDICT_SLOWER, "%s %s", cb_verdict_name(row.verdict), row.note);
    CB_CHECK_NEAR(row.ratio, 1.10, 0.01);
    CB_CHECK(row.ci_lo > 1.0 + o.delta && row.q <= o.alpha);
    row = rounds_point(&o, c, b);
    CB_CHECK(row.verdict == CB_VERDICT_FASTER);

    /* 2% slower: real but below delta: never slower; not shown same */
    draw(c, R, N, 102e-6, 0.002, 0.005);
    row = rounds_point(&o, b, c);
    CB_CHECK(row.verdict == CB_VERDICT_INCONCLUSIVE || row.verdict == CB_VERDICT_SAME);

    /* too few samples */
    o.min_samples = 200;
    row = rounds_point(&o, b, c);
    CB_CHECK(row.verdict == CB_VERDICT_INCONCLUSIVE);
    CB_CHECK_CONTAINS(row.note, "too few samples (100/100, need 200)");
}

/* The timer's floor, per run, and a host-timed batch. */
static void shapes_floor(void)
{
    cb_compare_opts o = rounds_alone();
    cb_compare_row row;

    /* The floor: a 4 us launch-bound point 8% slower is 0.32 us, below the
     * event timer's 0.5 us: inconclusive, however tight; 0 removes it. */
    draw(b, R, N, 4e-6, 0.001, 0.002);
    draw(c, R, N, 4.32e-6, 0.001, 0.002);
    row = rounds_point(&o, b, c);
    CB_CHECK(row.verdict == CB_VERDICT_INCONCLUSIVE);
    CB_CHECK_CONTAINS(row.note, "below the timer's 0.5 us floor");
    CB_CHECK_NEAR(row.mde, 0.5 / 4.0, 0.01);
    o.event_res_s = 0.0;
    row = rounds_point(&o, b, c);
    CB_CHECK(row.verdict == CB_VERDICT_SLOWER);
    /* ... and an A/A there cannot be called same under the floor */
    o = rounds_alone();
    row = rounds_point(&o, b, b);
    CB_CHECK(row.verdict == CB_VERDICT_INCONCLUSIVE);
    CB_CHECK_CONTAINS(row.note, "of the median is 0.12 us: below the timer's 0.5 us floor");
    o.event_res_s = 0.0;
    row = rounds_point(&o, b, b);
    CB_CHECK(row.verdict == CB_VERDICT_SAME);
    o = rounds_alone();
    /* the floor is per run: a batch of 100 divides it */
    row = one_point(&o, "event", 100, b, c, R, N, 1);
    CB_CHECK(row.verdict == CB_VERDICT_SLOWER);
    CB_CHECK_NEAR(row.floor_s, 0.5e-8, 1e-15);

    /* By default the floor is the grid the samples sit on: the same 4 us
     * point with its times on the H200's 32 ns event grid (most tie) can
     * be `same` at delta 3% (0.12 us) and 8% slower is slower; the grid is
     * the larger side's. Times that mostly differ show no grid: 0.5 us. */
    o = rounds_alone();
    draw(b, R, N, 4e-6, 0.001, 0.002);
    draw(c, R, N, 4.32e-6, 0.001, 0.002);
    for (int i = 0; i < R * N; i++) {
        b[i] = 32e-9 * round(b[i] / 32e-9);
        c[i] = 64e-9 * round(c[i] / 64e-9);
    }
    row = rounds_point(&o, b, b);
    CB_CHECK_NEAR(row.floor_s, 32e-9, 1e-15);
    CB_CHECK(row.verdict == CB_VERDICT_SAME);
    row = rounds_point(&o, b, c);
    CB_CHECK_NEAR(row.floor_s, 64e-9, 1e-15);
    CB_CHECK(row.verdict == CB_VERDICT_SLOWER);
    draw(b, R, N, 4e-6, 0.001, 0.002);
    row = rounds_point(&o, b, b);
    CB_CHECK_NEAR(row.floor_s, 0.5e-6, 1e-15);

    /* A host-timed, batched point from 97 ns to 184 ns: slower (the event
     * floor of 0.5 us called this `same`). */
    draw(b, R, N, 97e-9, 0.002, 0.01);
    draw(c, R, N, 184e-9, 0.002, 0.01);
    row = one_point(&o, "host", 1000, b, c, R, N, 1);
    CB_CHECK(row.verdict == CB_VERDICT_SLOWER);
    CB_CHECK_NEAR(row.floor_s, 1e-10, 1e-18);
}

/* One unit per run, with and without --between-run. */
static void shapes_one_unit(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    cb_compare_row row;

    /* One unit per run (schema 1), --between-run 0.01: 1% per run makes
     * 5% undecidable (MDE about 9%), 20% is still slower. */
    o.between_run_sd = 0.01;
    draw(b, 1, 60, 100e-6, 0.0, 0.005);
    draw(c, 1, 60, 105e-6, 0.0, 0.005);
    row = one_point(&o, "event", 1, b, c, 1, 60, 1);
    CB_CHECK(row.base.basis == CB_BASIS_SAMPLES && row.widening == CB_WIDEN_DEFAULT);
    CB_CHECK_NEAR(row.spread.sd, 0.01, 0);
    CB_CHECK(row.verdict == CB_VERDICT_INCONCLUSIVE);
    CB_CHECK(row.mde > 0.08 && row.mde < 0.11);
    draw(c, 1, 60, 120e-6, 0.0, 0.005);
    row = one_point(&o, "event", 1, b, c, 1, 60, 1);
    CB_CHECK(row.verdict == CB_VERDICT_SLOWER);
    /* --between-run 0: the samples alone (what compare claimed before) */
    o.between_run_sd = 0.0;
    draw(c, 1, 60, 105e-6, 0.0, 0.005);
    row = one_point(&o, "event", 1, b, c, 1, 60, 1);
    CB_CHECK(row.widening == CB_WIDEN_NONE && row.verdict == CB_VERDICT_SLOWER);
}

/* The built-in default by kind and time tier. */
static void shapes_defaults(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    cb_compare_row row;

    /* The built-in default widens rounds too, by the point's kind and, for
     * device kernels, the BASE median's time scale: its tier's row of
     * compare_defaults.c (0.15% per run at 100 us, 2.13% at 5 us as derived
     * from tests/data), with its df. */
    cb_spread want;
    const char *why;
    row = drawn_point(&o, 100e-6, 105e-6);
    CB_CHECK(row.base.basis == CB_BASIS_ROUNDS && row.widening == CB_WIDEN_DEFAULT);
    CB_CHECK(cb_kind_default_spread(CB_CMP_KIND_DEVICE, row.base.median_s, &want, &why));
    CB_CHECK(want.sd > 0.001 && want.sd < 0.005 && isfinite(want.df));
    CB_CHECK_NEAR(row.spread.sd, want.sd, 1e-15);
    CB_CHECK_NEAR(row.spread.df, want.df, 1e-12);
    row = drawn_point(&o, 5e-6, 5e-6);
    CB_CHECK(row.widening == CB_WIDEN_DEFAULT);
    CB_CHECK(cb_kind_default_spread(CB_CMP_KIND_DEVICE, 5e-6, &want, &why) && want.sd > 0.01);
    CB_CHECK_NEAR(row.spread.sd, want.sd, 1e-15);
    CB_CHECK(row.mde > 0.1); /* 1.8% per run on each side: a 5 us point cannot show 10% */
}

/* A calibration groups a benchmark's points by path: three quiet points
 * (memory=pinned, 0.5% between runs) and three loud ones (memory=pageable,
 * 20%) of one benchmark at one time scale keep their own spreads. One group
 * of all six gave both about 14%. A version-2 row (by benchmark) still
 * serves a point whose path has none; the path drops numeric values. */
static void calibration_paths(void)
{
    cb_cmp_run set;
    cb_cmp_run_init(&set);
    cb_msg err;
    cb_calib_obs obs[24];
    int n = 0;
    for (int i = 0; i < 6; i++) {
        bool loud = i >= 3;
        char axes[64];
        snprintf(axes, sizeof axes, "direction=h2d;memory=%s;bytes=%d",
                 loud ? "pageable" : "pinned", 1000 + i);
        const cb_cmp_point *p = cb_cmp_run_add_point(&set, "transfers/x", axes, "ok", NULL, &err);
        for (int k = 0; k < 4; k++) {
            double offset = (loud ? 0.2 : 0.005) * ((k + i) % 4 - 1.5) / 1.29;
            obs[n++] = (cb_calib_obs){p, k, log(100e-6) + offset, 0.0, 100e-6};
        }
    }
    cb_calibration cal;
    CB_CHECK(cb_calibration_build(obs, n, 4, "rounds", "Test GPU", &cal, &err));
    const cb_calib_row *quiet = cb_calibration_lookup(
        &cal, CB_CMP_KIND_DEVICE, "transfers/x", "direction=h2d;memory=pinned;bytes=7", 100e-6);
    const cb_calib_row *loud = cb_calibration_lookup(
        &cal, CB_CMP_KIND_DEVICE, "transfers/x", "direction=h2d;memory=pageable;bytes=9", 100e-6);
    CB_CHECK(quiet && loud);
    if (quiet && loud) {
        printf("calibration by path: pinned sd %.4f, pageable sd %.4f\n", quiet->sd, loud->sd);
        CB_CHECK(quiet->sd < 0.01);
        CB_CHECK(loud->sd > 0.15);
        CB_CHECK_STR(loud->benchmark, "transfers/x;direction=h2d;memory=pageable");
    }
    char path[CB_CALIB_PATH_LEN];
    cb_calib_path("vecadd/grid_stride", "n=1024;block=256;grid=auto;ilp=4", path, sizeof path);
    CB_CHECK_STR(path, "vecadd/grid_stride;grid=auto");
    /* a version-2 calibration's benchmark row serves the path's points (the
     * last row renamed: the rows stay sorted) */
    cb_calib_row *last = &cal.rows[cal.n_rows - 1];
    free(last->benchmark);
    last->benchmark = strdup("transfers/y");
    const cb_calib_row *v2 = cb_calibration_lookup(&cal, CB_CMP_KIND_DEVICE, "transfers/y",
                                                   "memory=pinned;bytes=1", 100e-6);
    CB_CHECK(v2 == last);
    cb_calibration_free(&cal);
    cb_cmp_run_free(&set);
}

/* A calibration's spread and df. */
static void shapes_calibration(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);

    /* A calibration widens rounds too, with its df: four points of three
     * runs that share their offsets (-2%, 0, +2%): sigma 2% per run, most of
     * it run-wide, so df counts runs (about 3.4), not points. */
    cb_cmp_run set;
    cb_cmp_run_init(&set);
    cb_msg err;
    cb_calib_obs obs[12];
    for (int i = 0; i < 4; i++) {
        char axes[16];
        snprintf(axes, sizeof axes, "n=%d", i);
        const cb_cmp_point *p = cb_cmp_run_add_point(&set, "fam/x", axes, "ok", NULL, &err);
        for (int k = 0; k < 3; k++)
            obs[3 * i + k] = (cb_calib_obs){p, k, log(100e-6) + 0.02 * (k - 1), 0.0, 100e-6};
    }
    cb_calibration cal;
    CB_CHECK(cb_calibration_build(obs, 12, 3, "rounds", "Test GPU", &cal, &err));
    cb_spread_source src = cb_calibration_source(&cal);
    o.sources = &src;
    o.n_sources = 1;
    cb_compare_row row = drawn_point(&o, 100e-6, 110e-6);
    CB_CHECK(row.widening == CB_WIDEN_SOURCE);
    CB_CHECK_NEAR(row.spread.sd, 0.02, 1e-12);
    CB_CHECK(row.verdict == CB_VERDICT_INCONCLUSIVE); /* 2% per run, df ~3.4: MDE far above 10% */
    CB_CHECK(row.df < 6);
    cb_calibration_free(&cal);
    cb_cmp_run_free(&set);
    calibration_paths();
}

/* Several runs per side. */
static void shapes_runs(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);

    /* Several runs per side: the runs are the unit, no widening. */
    draw(b, D * R, N, 100e-6, 0.003, 0.005);
    draw(c, D * R, N, 110e-6, 0.003, 0.005);
    cb_compare_row row = one_point(&o, "event", 1, b, c, R, N, D);
    CB_CHECK(row.base.basis == CB_BASIS_RUNS && row.base.runs == D &&
             row.widening == CB_WIDEN_NONE);
    CB_CHECK(row.df >= 2 * (D - 1) - 1);
    CB_CHECK(row.verdict == CB_VERDICT_SLOWER);
}

static void test_shapes(void)
{
    shapes_rounds();
    shapes_floor();
    shapes_one_unit();
    shapes_defaults();
    shapes_calibration();
    shapes_runs();
}

/* A spread that is small by chance must not make a point certain: five
 * rounds with exactly equal medians still carry their samples' noise. */
static void test_unit_floors(void)
{
    enum { ROUNDS = 5, PER_ROUND = 21 };
    static double t[ROUNDS * PER_ROUND];
    /* median 1e-4 in every round */
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < PER_ROUND; k++)
            t[r * PER_ROUND + k] = 1e-4 * (1.0 + 0.01 * (k - PER_ROUND / 2) / (PER_ROUND / 2));
    cb_cmp_run run;
    cb_cmp_run_init(&run);
    cb_cmp_point *p = explicit_point(&run, "event", 1, t, ROUNDS, PER_ROUND);
    cb_side_est e;
    cb_msg err;
    CB_CHECK(p && cb_side_estimate(p, NAN, &e, &err));
    CB_CHECK(e.basis == CB_BASIS_ROUNDS && e.units == ROUNDS && e.runs == 1 &&
             e.n == ROUNDS * PER_ROUND);
    CB_CHECK_NEAR(e.median_s, 1e-4, 1e-12);
    CB_CHECK(e.var > 0.0); /* not the rounds' zero spread */
    /* samples in a scrambled order group the same (sorted, n log n) */
    cb_cmp_run shuffled;
    cb_cmp_run_init(&shuffled);
    CB_CHECK(cb_cmp_run_begin_dir(&shuffled, "y", &err));
    cb_cmp_point *q = cb_cmp_run_add_point(&shuffled, "fam/x", "n=1", "ok", NULL, &err);
    for (int s = 0; q && s < ROUNDS * PER_ROUND; s++) {
        int at = (s * 37) % (ROUNDS * PER_ROUND); /* 37 is prime to 105: a permutation */
        CB_CHECK(cb_cmp_point_add_time(q, t[at], at / PER_ROUND, &err));
    }
    cb_side_est f;
    CB_CHECK(q && cb_side_estimate(q, NAN, &f, &err));
    CB_CHECK_NEAR(f.center, e.center, 1e-12);
    CB_CHECK(f.units == ROUNDS);
    cb_cmp_run_free(&run);
    cb_cmp_run_free(&shuffled);
}

typedef struct sim_tally {
    int pairs, pairs_alarmed;     /* family-wise: any slower or faster */
    long points, covered;         /* the CI holds the true ratio        */
    long small_mde, small_caught; /* MDE <= planted effect: flagged?    */
    long tested;
} sim_tally;

/* One simulated pair: BASE from `mb`, NEW from `mn` (`dirs` processes each),
 * tallied against the true ratio `truth`. */
static void sim_pair(const sim_model *mb, const sim_model *mn, int dirs, const cb_compare_opts *o,
                     double truth, sim_tally *t)
{
    cb_cmp_run base, cand;
    cb_cmp_run_init(&base);
    cb_cmp_run_init(&cand);
    bool ok = true;
    for (int d = 0; ok && d < dirs; d++)
        ok = sim_add_process(&base, mb) && sim_add_process(&cand, mn);
    CB_CHECK(ok);
    cb_compare_result r;
    cb_msg err;
    if (ok && cb_compare_runs(&base, &cand, o, &r, &err)) {
        t->pairs++;
        if (truth == 1.0 && (r.counts[CB_VERDICT_SLOWER] || r.counts[CB_VERDICT_FASTER]))
            t->pairs_alarmed++;
        for (int i = 0; i < r.n_rows; i++) {
            const cb_compare_row *row = &r.rows[i];
            if (isnan(row->p)) continue;
            t->tested++;
            t->points++;
            t->covered += row->ci_lo <= truth && truth <= row->ci_hi;
            if (truth > 1.0 && row->mde <= truth - 1.0) {
                t->small_mde++;
                t->small_caught += row->verdict == CB_VERDICT_SLOWER;
            }
        }
        cb_compare_result_free(&r);
    }
    cb_cmp_run_free(&base);
    cb_cmp_run_free(&cand);
}

static sim_tally simulate(const sim_model *m, int pairs, int dirs, const cb_compare_opts *o,
                          double slowdown)
{
    sim_tally t = {0};
    sim_model mn = *m;
    mn.slowdown = slowdown;
    for (int k = 0; k < pairs; k++)
        sim_pair(m, &mn, dirs, o, slowdown, &t);
    return t;
}

static void report(const char *what, const sim_tally *t)
{
    printf("%-58s pairs %3d alarmed %2d  coverage %.4f", what, t->pairs, t->pairs_alarmed,
           t->points ? (double)t->covered / t->points : NAN);
    if (t->small_mde)
        printf("  caught %ld of %ld at MDE <= effect (%.3f)", t->small_caught, t->small_mde,
               (double)t->small_caught / t->small_mde);
    printf("\n");
}

/* Many A/A pairs of 200 points each: the share of pairs with any false
 * slower or faster must stay at or below 5% (the brief's family-wise bar;
 * BH at alpha = 1% with the delta margin gives far less), and the 99% CIs
 * must cover the true ratio 1. */
static void test_false_alarms(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    sim_model m = sim_default();

    /* one run per side with rounds; bimodal points alternate by round */
    sim_tally t = simulate(&m, 200 / SIM_SCALE, 1, &o, 1.0);
    report("A/A, 1 run x 5 rounds, bimodal + AR(0.5)", &t);
    CB_CHECK(t.pairs == 200 / SIM_SCALE && t.pairs_alarmed <= 10 / SIM_SCALE);
    CB_CHECK((double)t.covered / t.points >= 0.985);

    /* a process component the rounds cannot see (1% per process), with a
     * calibration recorded from three A/A runs of the same machine */
    m.sigma_process = 0.01;
    cb_cmp_run set;
    cb_cmp_run_init(&set);
    CB_CHECK(sim_add_process(&set, &m) && sim_add_process(&set, &m) && sim_add_process(&set, &m));
    cb_calibration cal;
    cb_msg err;
    int points = 0;
    CB_CHECK(cb_calibration_record(&set, o.min_samples, &cal, &points, &err));
    CB_CHECK(points == m.points);
    cb_cmp_run_free(&set);
    cb_spread_source src = cb_calibration_source(&cal);
    o.sources = &src;
    o.n_sources = 1;
    t = simulate(&m, 100 / SIM_SCALE, 1, &o, 1.0);
    report("A/A, 1% process offsets, rounds + calibration", &t);
    CB_CHECK(t.pairs == 100 / SIM_SCALE && t.pairs_alarmed <= 5 / SIM_SCALE);
    CB_CHECK((double)t.covered / t.points >= 0.98);
    o.sources = NULL;
    o.n_sources = 0;
    cb_calibration_free(&cal);

    /* schema-1 style: one unit per run, --between-run 0.01, the truth 0.8%
     * per process (the worst classes of the first H200 A/A pairs) */
    o.between_run_sd = 0.01;
    sim_model s = m;
    s.rounds = 1;
    s.samples = 40;
    s.sigma_process = 0.008;
    t = simulate(&s, 100 / SIM_SCALE, 1, &o, 1.0);
    report("A/A, one unit per run, 0.8% process, default widening", &t);
    CB_CHECK(t.pairs == 100 / SIM_SCALE && t.pairs_alarmed <= 5 / SIM_SCALE);

    /* four runs per side (a perf gate): the runs are the unit */
    m.rounds = 2;
    m.samples = 15;
    t = simulate(&m, 60 / SIM_SCALE, 4, &o, 1.0);
    report("A/A, 4 runs x 2 rounds per side, 1% process", &t);
    CB_CHECK(t.pairs == 60 / SIM_SCALE && t.pairs_alarmed <= 3 / SIM_SCALE);
    CB_CHECK((double)t.covered / t.points >= 0.98);
}

/* Planted slowdowns on every point: at the points whose reported MDE is at
 * most the planted effect, +5% must be caught at >= 95% of them and +10% at
 * (all but a rare) every one; and a point's MDE must mean what it says. */
static void test_power(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    /* the model has no process offset: rounds alone are right here */
    o.between_run_sd = 0.0;
    sim_model m = sim_default();
    sim_tally t5 = simulate(&m, 40 / SIM_SCALE, 1, &o, 1.05);
    report("planted +5%, 1 run x 5 rounds", &t5);
    CB_CHECK(t5.small_mde > 1000 / SIM_SCALE); /* a fifth of the points can catch 5% */
    CB_CHECK(t5.small_caught >= 0.95 * t5.small_mde);
    sim_tally t10 = simulate(&m, 40 / SIM_SCALE, 1, &o, 1.10);
    report("planted +10%, 1 run x 5 rounds", &t10);
    CB_CHECK(t10.small_mde > t5.small_mde);
    CB_CHECK(t10.small_caught >= 0.995 * t10.small_mde);
    CB_CHECK((double)t10.covered / t10.points >= 0.985);
}

/* test_result's rows: sorted by verdict, slower by ratio, notes. */
static void check_result_rows(const cb_compare_result *r)
{
    for (int i = 1; i < r->n_rows; i++) {
        CB_CHECK(r->rows[i - 1].verdict <= r->rows[i].verdict);
        if (r->rows[i].verdict == CB_VERDICT_SLOWER && r->rows[i - 1].verdict == CB_VERDICT_SLOWER)
            CB_CHECK(r->rows[i - 1].ratio >= r->rows[i].ratio);
    }
    for (int i = 0; i < r->n_rows; i++) {
        if (r->rows[i].verdict == CB_VERDICT_NEW) CB_CHECK_CONTAINS(r->rows[i].note, "not in BASE");
        if (r->rows[i].verdict == CB_VERDICT_MISSING)
            CB_CHECK_CONTAINS(r->rows[i].note, "not in NEW");
        if (r->rows[i].verdict == CB_VERDICT_UNTIMED)
            CB_CHECK_CONTAINS(r->rows[i].note, "BASE: skip: no GPU");
    }
}

/* test_result's geomean and groups. */
static void check_result_geomean(const cb_compare_result *r)
{
    CB_CHECK(r->geomean.points == 40);
    CB_CHECK(r->geomean.ci_lo < 1.2 && 1.2 < r->geomean.ci_hi);
    CB_CHECK(r->geomean.ci_hi / r->geomean.ci_lo < 1.01);
    /* groups in identity order: sim/even, sim/odd, sim/gone, sim/skipped, sim/added */
    CB_CHECK(r->n_groups == 5);
    if (r->n_groups == 5) {
        CB_CHECK(strcmp(r->groups[0].benchmark, "sim/even") == 0);
        CB_CHECK(strcmp(r->groups[1].benchmark, "sim/odd") == 0);
        CB_CHECK(strcmp(r->groups[4].benchmark, "sim/added") == 0);
        CB_CHECK(r->groups[0].geomean.points == 20);
        CB_CHECK(r->groups[0].geomean.ci_lo < 1.2 && 1.2 < r->groups[0].geomean.ci_hi);
        CB_CHECK(r->groups[2].geomean.points == 0 && isnan(r->groups[2].geomean.ratio));
    }
}

/* Counts, order, groups and geometric means over a small known result. */
static void test_result(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    o.between_run_sd = 0.0; /* the model has no process offset */
    sim_model m = sim_default();
    m.points = 40;
    m.bimodal = false;
    sim_model slow = m;
    slow.slowdown = 1.2;
    cb_cmp_run base, cand;
    cb_cmp_run_init(&base);
    cb_cmp_run_init(&cand);
    CB_CHECK(sim_add_process(&base, &m) && sim_add_process(&cand, &slow));
    cb_msg err;
    /* a point only NEW has, one only BASE has, one neither timed */
    CB_CHECK(cb_cmp_run_add_point(&cand, "sim/added", "i=0", "ok", NULL, &err) != NULL);
    CB_CHECK(cb_cmp_run_add_point(&base, "sim/gone", "i=0", "ok", NULL, &err) != NULL);
    CB_CHECK(cb_cmp_run_add_point(&base, "sim/skipped", "i=0", "skip", "no GPU", &err) != NULL);
    CB_CHECK(cb_cmp_run_add_point(&cand, "sim/skipped", "i=0", "skip", "no GPU", &err) != NULL);
    cb_cmp_point *added = cb_cmp_run_find(&cand, "sim/added", "i=0", NULL);
    cb_cmp_point *gone = cb_cmp_run_find(&base, "sim/gone", "i=0", NULL);
    for (int k = 0; k < 10; k++) {
        CB_CHECK(cb_cmp_point_add_time(added, 1e-3, 0, &err));
        CB_CHECK(cb_cmp_point_add_time(gone, 1e-3, 0, &err));
    }
    cb_compare_result r;
    CB_CHECK(cb_compare_runs(&base, &cand, &o, &r, &err));
    CB_CHECK(r.n_rows == 43 && r.tested == 40);
    CB_CHECK(r.counts[CB_VERDICT_NEW] == 1 && r.counts[CB_VERDICT_MISSING] == 1);
    CB_CHECK(r.counts[CB_VERDICT_UNTIMED] == 1);
    /* every point 20% slower except where the floor bites (the smallest) */
    CB_CHECK(r.counts[CB_VERDICT_SLOWER] >= 36);
    check_result_rows(&r);
    check_result_geomean(&r);
    cb_compare_result_free(&r);
    cb_cmp_run_free(&base);
    cb_cmp_run_free(&cand);
}

int main(void)
{
    test_shapes();
    test_unit_floors();
    test_result();
    test_false_alarms();
    test_power();
    return cb_test_finish("test_compare_verdicts");
}
