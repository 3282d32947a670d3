/* test_compare_kinds.c - the between-run spread by kind of point, on
 * synthetic A/A pairs whose processes differ as the recorded H200 runs did
 * (compare_defaults.c): per kind, one run of 5 rounds per side at the
 * defaults, the share of pairs with any false slower or faster, the
 * coverage of the points' 99% CIs and of the geometric mean's (whose
 * run-wide offset term is new: the old CI is computed beside it and
 * printed); a kind without a default is untested from one run per side and
 * tested from three; a calibration of the kind's runs is used before it. */
/* test links: cubench_compare */
#include "compare.h"

#include "compare_defaults.h"
#include "compare_kind.h"
#include "compare_stats.h"
#include "cb_test.h"
#include "cb_test_files.h"
#include "test_compare_sim.h"

#include <stdlib.h>
#include <unistd.h>

/* The release build runs the full simulation (about 2 s); under
 * AddressSanitizer a fifth of the pairs checks the same code. */
#if defined(__SANITIZE_ADDRESS__)
#define SIM_SCALE 5
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_SCALE 5
#endif
#endif
#ifndef SIM_SCALE
#define SIM_SCALE 1
#endif

enum { PAIRS = 100 / SIM_SCALE };

/* Give every point of the run the kind. */
static void set_kind(cb_cmp_run *run, cb_cmp_kind kind)
{
    for (int i = 0; i < run->n_points; i++)
        run->points[i].kind = kind;
}

/* The geometric mean's CI as it was before the run-wide term: the larger
 * of sum(var)/P^2 and s^2(d)/P. Does it hold the truth 1? */
static bool old_geomean_covers(const cb_compare_result *r, double alpha)
{
    double sum = 0, var_sum = 0, df_den = 0, ss = 0;
    int P = 0;
    for (int i = 0; i < r->n_rows; i++)
        if (!isnan(r->rows[i].p)) {
            P++, sum += r->rows[i].log_ratio, var_sum += r->rows[i].var;
            if (isfinite(r->rows[i].df)) df_den += r->rows[i].var * r->rows[i].var / r->rows[i].df;
        }
    if (P < 2) return true;
    for (int i = 0; i < r->n_rows; i++)
        if (!isnan(r->rows[i].p))
            ss += (r->rows[i].log_ratio - sum / P) * (r->rows[i].log_ratio - sum / P);
    double var = var_sum / ((double)P * P), df = df_den > 0 ? var_sum * var_sum / df_den : INFINITY;
    if (ss / (P - 1) / P > var) var = ss / (P - 1) / P, df = P - 1;
    return fabs(sum / P) <= cb_t_quantile(1.0 - alpha / 2.0, df) * sqrt(var);
}

typedef struct tally {
    int pairs, alarmed, geo_covered, old_geo_covered;
    long points, covered;
} tally;

/* One A/A pair of the model, its points of `kind`, tallied. */
static void aa_pair(const sim_model *m, cb_cmp_kind kind, const cb_compare_opts *o, tally *t)
{
    cb_cmp_run base, cand;
    cb_cmp_run_init(&base), cb_cmp_run_init(&cand);
    CB_CHECK(sim_add_process(&base, m) && sim_add_process(&cand, m));
    set_kind(&base, kind), set_kind(&cand, kind);
    cb_compare_result r;
    cb_msg err;
    if (cb_compare_runs(&base, &cand, o, &r, &err)) {
        t->pairs++;
        t->alarmed += r.counts[CB_VERDICT_SLOWER] + r.counts[CB_VERDICT_FASTER] > 0;
        for (int i = 0; i < r.n_rows; i++)
            if (!isnan(r.rows[i].p))
                t->points++, t->covered += r.rows[i].ci_lo <= 1.0 && 1.0 <= r.rows[i].ci_hi;
        t->geo_covered += r.geomean.ci_lo <= 1.0 && 1.0 <= r.geomean.ci_hi;
        t->old_geo_covered += old_geomean_covers(&r, o->alpha);
        cb_compare_result_free(&r);
    }
    cb_cmp_run_free(&base), cb_cmp_run_free(&cand);
}

/* A/A pairs of each trusted default's tier, the processes differing as
 * the default says (its run-wide part shared by the run's points). */
static void test_aa_by_kind(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    int n;
    const cb_kind_default *d = cb_kind_defaults(&n);
    double lo = 1.5e-6;
    printf("A/A at the defaults, %d pairs each (1 run x 5 rounds per side, 60 points):\n", PAIRS);
    for (int i = 0; i < n; i++) {
        if (!d[i].trusted) continue;
        sim_model m = sim_default();
        m.points = 60;
        m.bimodal = false;
        m.median_lo = d[i].kind == CB_CMP_KIND_DEVICE ? lo * 1.2 : 50e-6;
        m.median_hi = isinf(d[i].below_s) ? 10e-3 : d[i].below_s * 0.95;
        m.sigma_run = isnan(d[i].run_sd) ? 0.0 : d[i].run_sd;
        m.sigma_process = sqrt(d[i].sd * d[i].sd - m.sigma_run * m.sigma_run);
        lo = isinf(d[i].below_s) ? lo : d[i].below_s;
        tally t = {0};
        for (int k = 0; k < PAIRS; k++)
            aa_pair(&m, d[i].kind, &o, &t);
        printf("  %-9s to %9.3g s: pairs alarmed %d of %d, point CIs cover %.4f, geomean CI %d of "
               "%d (without the run-wide term %d)\n",
               cb_cmp_kind_name(d[i].kind), m.median_hi, t.alarmed, t.pairs,
               (double)t.covered / t.points, t.geo_covered, t.pairs, t.old_geo_covered);
        CB_CHECK(t.pairs == PAIRS && t.alarmed <= PAIRS / 20);
        CB_CHECK((double)t.covered / t.points >= 0.98);
        CB_CHECK(t.geo_covered >= PAIRS * 93 / 100);
        if (d[i].kind == CB_CMP_KIND_DEVICE && d[i].below_s < 20e-6)
            CB_CHECK(t.old_geo_covered < t.geo_covered); /* what was wrong */
    }
}

/* A kind without a default (multi-GPU points: no recorded pair of
 * processes; copies staged through pageable memory: heavy tails) is
 * untested from one run per side, with the reason; tested from three;
 * tested with a calibration of it. */
static void untrusted_kind_case(cb_cmp_kind kind, const char *note)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    sim_model m = sim_default();
    m.points = 20;
    m.sigma_process = 0.05;
    cb_cmp_run base, cand, set;
    cb_cmp_run_init(&base), cb_cmp_run_init(&cand), cb_cmp_run_init(&set);
    CB_CHECK(sim_add_process(&base, &m) && sim_add_process(&cand, &m));
    set_kind(&base, kind), set_kind(&cand, kind);
    cb_compare_result r;
    cb_msg err;
    CB_CHECK(cb_compare_runs(&base, &cand, &o, &r, &err));
    CB_CHECK(r.tested == 0 && r.counts[CB_VERDICT_INCONCLUSIVE] == 20);
    CB_CHECK(r.power[kind].untested == 20);
    CB_CHECK_CONTAINS(r.rows[0].note, note);
    cb_compare_result_free(&r);
    /* three runs per side: the runs are the unit */
    CB_CHECK(sim_add_process(&base, &m) && sim_add_process(&base, &m));
    CB_CHECK(sim_add_process(&cand, &m) && sim_add_process(&cand, &m));
    set_kind(&base, kind), set_kind(&cand, kind);
    CB_CHECK(cb_compare_runs(&base, &cand, &o, &r, &err));
    CB_CHECK(r.tested == 20 && r.counts[CB_VERDICT_SLOWER] + r.counts[CB_VERDICT_FASTER] == 0);
    cb_compare_result_free(&r);
    /* one run per side with a calibration of this kind from three runs */
    for (int k = 0; k < 3; k++)
        CB_CHECK(sim_add_process(&set, &m));
    set_kind(&set, kind);
    cb_calibration cal;
    int points;
    CB_CHECK(cb_calibration_record(&set, o.min_samples, &cal, &points, &err) && points == 20);
    const cb_calib_row *pooled = cb_calibration_lookup(&cal, kind, "*", NULL, 1.0);
    CB_CHECK(pooled && pooled->runs == 3 && pooled->sd > 0.03 && pooled->df < 40.0);
    cb_spread_source src = cb_calibration_source(&cal);
    o.sources = &src, o.n_sources = 1;
    cb_cmp_run one_b, one_c;
    cb_cmp_run_init(&one_b), cb_cmp_run_init(&one_c);
    CB_CHECK(sim_add_process(&one_b, &m) && sim_add_process(&one_c, &m));
    set_kind(&one_b, kind), set_kind(&one_c, kind);
    CB_CHECK(cb_compare_runs(&one_b, &one_c, &o, &r, &err));
    CB_CHECK(r.tested == 20 && r.widening_count[CB_WIDEN_SOURCE] == 20);
    cb_compare_result_free(&r);
    cb_calibration_free(&cal);
    cb_cmp_run_free(&one_b), cb_cmp_run_free(&one_c);
    cb_cmp_run_free(&base), cb_cmp_run_free(&cand), cb_cmp_run_free(&set);
}

static void test_untrusted_kind(void)
{
    untrusted_kind_case(CB_CMP_KIND_MULTI_GPU, "multi_gpu points: no default between-run spread");
    untrusted_kind_case(CB_CMP_KIND_STAGED_COPY,
                        "staged_copy points: no default between-run spread: copies staged through "
                        "pageable memory");
}

/* A calibration counts its degrees of freedom by runs for what every point
 * of a run shares: two runs that share an offset over 60 points are not 60
 * observations of it. And it is never sigma = 0. The run offset (3%) is
 * large against the points' own spread (about 0.3%), so the run-wide part
 * dominates unless three draws land within a tenth of it (about 1 in 100);
 * the generator restarts here, so the draws do not depend on how many the
 * tests before took (their pair counts differ under the sanitizers). */
static void test_calibration_df(void)
{
    sim_rng = 0x5EED;
    sim_model m = sim_default();
    m.points = 60;
    m.bimodal = false;
    m.sigma_run = 0.03;
    cb_cmp_run set;
    cb_cmp_run_init(&set);
    for (int k = 0; k < 3; k++)
        CB_CHECK(sim_add_process(&set, &m));
    cb_calibration cal;
    cb_msg err;
    int points;
    CB_CHECK(cb_calibration_record(&set, 5, &cal, &points, &err) && points == 60);
    const cb_calib_row *all = cb_calibration_lookup(&cal, CB_CMP_KIND_DEVICE, "*", NULL, 1.0);
    CB_CHECK(all && all->df < 10.0 && all->run_df == 2.0);
    printf("calibration of 3 runs x 60 points sharing a 3%% run offset: sigma %.2f%% with df "
           "%.1f (its run-wide part %.2f%%, df %.0f)\n",
           100.0 * all->sd, all->df, 100.0 * all->run_sd, all->run_df);
    for (int i = 0; i < cal.n_rows; i++)
        CB_CHECK(cal.rows[i].sd > 0.0);
    cb_calibration_free(&cal);
    cb_cmp_run_free(&set);
    /* identical runs (a copy): the floor, not 0 */
    cb_cmp_run same;
    cb_cmp_run_init(&same);
    m.sigma_run = 0.0;
    CB_CHECK(sim_add_process(&same, &m));
    for (int k = 0; k < 2; k++) { /* the same samples again, as another directory */
        cb_msg e;
        CB_CHECK(cb_cmp_run_begin_dir(&same, "copy", &e));
        int dir = same.n_dirs - 1;
        for (int i = 0; i < same.n_points; i++) {
            cb_cmp_point *p = &same.points[i];
            int n = p->n;
            p->last_dir = dir;
            for (int s = 0; s < n; s++)
                if (p->dir[s] == 0)
                    CB_CHECK(cb_cmp_point_add_time(p, p->times[s], p->replicate[s], &e));
        }
    }
    CB_CHECK(cb_calibration_record(&same, 5, &cal, &points, &err));
    for (int i = 0; i < cal.n_rows; i++)
        CB_CHECK(cal.rows[i].sd > 0.0);
    cb_calibration_free(&cal);
    cb_cmp_run_free(&same);
}

/* A set whose runs time parts of the suite (three processes of one part,
 * three of another: how scripts/record/aa_pairs.sh records): each point has
 * its three runs, and the run-wide part comes from the runs' own points. */
static void test_calibration_of_parts(void)
{
    cb_cmp_run set;
    cb_cmp_run_init(&set);
    cb_msg err;
    for (int part = 0; part < 2; part++)
        for (int k = 0; k < 3; k++) {
            CB_CHECK(cb_cmp_run_begin_dir(&set, part ? "y" : "x", &err));
            double wide = 0.004 * sim_normal();
            for (int i = 0; i < 20; i++) {
                char axes[16];
                snprintf(axes, sizeof axes, "i=%d", i);
                cb_cmp_point *p =
                    cb_cmp_run_add_point(&set, part ? "y/b" : "x/a", axes, "ok", NULL, &err);
                double level = 1e-4 * (1 + i) * exp(wide + 0.002 * sim_normal());
                for (int s = 0; p && s < 20; s++)
                    CB_CHECK(cb_cmp_point_add_time(p, level * exp(0.003 * sim_normal()), 0, &err));
            }
        }
    cb_calibration cal;
    int points;
    CB_CHECK(cb_calibration_record(&set, 5, &cal, &points, &err) && points == 40);
    const cb_calib_row *all = cb_calibration_lookup(&cal, CB_CMP_KIND_DEVICE, "*", NULL, 1.0);
    CB_CHECK(all && all->runs == 3 && all->run_df == 5.0 && isfinite(all->run_sd));
    CB_CHECK(all && all->sd > 0.002 && all->sd < 0.015);
    cb_calibration_free(&cal);
    cb_cmp_run_free(&set);
}

/* The kind of a row that does not declare one (compare_kind.h), and a
 * declared one as this cubench reads it: a pageable copy declared
 * host_copy by an older build is a staged_copy; nothing else changes. */
static void test_kind_rules(void)
{
    static const struct {
        const char *axes, *timer, *device;
        bool has_device_col, python;
        cb_cmp_kind want;
    } rows[] = {
        {"n=1024", "cupti", "0", true, true, CB_CMP_KIND_PYTHON},
        {"ranks=2;bytes=1024", "event", "0", true, false, CB_CMP_KIND_MULTI_GPU},
        {"direction=h2d;memory=pageable;bytes=1", "event", "0", true, false,
         CB_CMP_KIND_STAGED_COPY},
        {"memory=pageable", "host", "", false, false, CB_CMP_KIND_STAGED_COPY},
        {"direction=h2d;memory=pinned;bytes=1", "event", "0", true, false, CB_CMP_KIND_HOST_COPY},
        {"memory=pageablex", "event", "0", true, false, CB_CMP_KIND_HOST_COPY},
        {"stage=d2h", "event", "0", true, false, CB_CMP_KIND_HOST_COPY},
        {"n=1024", "host", "", true, false, CB_CMP_KIND_HOST},
        {"n=1024", "host", "0", true, false, CB_CMP_KIND_HOST_COPY},
        {"n=1024", "host", "", false, false, CB_CMP_KIND_HOST},
        {"n=1024", "event", "0", true, false, CB_CMP_KIND_DEVICE},
    };
    for (int i = 0; i < CB_ARRAY_LEN(rows); i++) {
        cb_cmp_kind_facts f = {.family = ",fam,",
                               .axes = rows[i].axes,
                               .timer = rows[i].timer,
                               .has_device_col = rows[i].has_device_col,
                               .device = rows[i].device,
                               .python_family = rows[i].python};
        cb_cmp_kind got = cb_cmp_kind_infer(&f);
        CB_CHECK_MSG(got == rows[i].want, "%s: %s", rows[i].axes, cb_cmp_kind_name(got));
    }
    CB_CHECK(cb_cmp_kind_read_declared(CB_CMP_KIND_HOST_COPY, "direction=d2h;memory=pageable") ==
             CB_CMP_KIND_STAGED_COPY);
    CB_CHECK(cb_cmp_kind_read_declared(CB_CMP_KIND_HOST_COPY, "memory=pinned;bytes=1") ==
             CB_CMP_KIND_HOST_COPY);
    CB_CHECK(cb_cmp_kind_read_declared(CB_CMP_KIND_DEVICE, "memory=pageable") ==
             CB_CMP_KIND_DEVICE);
    cb_cmp_kind k;
    CB_CHECK(cb_cmp_kind_parse("staged_copy", &k) && k == CB_CMP_KIND_STAGED_COPY);
    CB_CHECK(!cb_cmp_kind_parse("staged", &k));
}

/* A calibration recorded before staged_copy existed: its pageable path
 * rows (host_copy) serve the pageable points, now staged_copy; its other
 * host_copy rows serve the other copies, and no pageable point falls back
 * to a host_copy row. */
static void test_calibration_of_older_kinds(void)
{
    char path[] = "/tmp/cb_test_calib_kinds_XXXXXX";
    int fd = mkstemp(path);
    CB_CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    CB_CHECK(cb_test_write_text(
        path, "calibration_version,kind,benchmark,bucket,points,runs,between_run_sd,df\n"
              "3,host_copy,transfers/memcpy_async;direction=h2d;memory=pageable,*,4,3,0.2,4\n"
              "3,host_copy,transfers/memcpy_async;direction=h2d;memory=pinned,*,4,3,0.01,4\n"));
    cb_calibration cal;
    cb_msg err = {{0}};
    CB_CHECK_MSG(cb_calibration_read(path, &cal, &err), "%s", err.text);
    unlink(path);
    if (!cal.rows) return;
    const cb_calib_row *staged =
        cb_calibration_lookup(&cal, CB_CMP_KIND_STAGED_COPY, "transfers/memcpy_async",
                              "direction=h2d;memory=pageable;bytes=1048576", 1e-3);
    CB_CHECK(staged && staged->kind == CB_CMP_KIND_STAGED_COPY && staged->sd == 0.2);
    const cb_calib_row *pinned =
        cb_calibration_lookup(&cal, CB_CMP_KIND_HOST_COPY, "transfers/memcpy_async",
                              "direction=h2d;memory=pinned;bytes=1048576", 1e-3);
    CB_CHECK(pinned && pinned->sd == 0.01);
    CB_CHECK(cb_calibration_lookup(&cal, CB_CMP_KIND_HOST_COPY, "transfers/memcpy_async",
                                   "direction=h2d;memory=pageable;bytes=1048576", 1e-3) == NULL);
    cb_calibration_free(&cal);
}

int main(void)
{
    test_kind_rules();
    test_calibration_of_older_kinds();
    test_aa_by_kind();
    test_untrusted_kind();
    test_calibration_df();
    test_calibration_of_parts();
    return cb_test_finish("test_compare_kinds");
}
