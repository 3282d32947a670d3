/* history_scale.c - a large history for the scale benchmark
 * (tests/history/run_benchmarks.sh times `history check`, `history export`
 * and the dashboard on it):
 *
 *   history_scale DB_URL [--runs 1000] [--points 700]
 *
 * Runs are built in memory (compare's run structure, results.csv's figures
 * only, no samples) and stored through the same code as `history add`
 * (cb_hist_store_run), 50 runs per transaction: writing a million result
 * rows through a million run directories would time the CSV reader, not
 * the history. Per point: a base time log-uniform in 2 us..10 ms, 0.5%
 * between-run noise; 1% of the points step +5% at run 60%, every point
 * steps +3% at a driver change at run 80%; 1% of the runs are throttled.
 * Prints the time the inserts took. */
#include "history_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x243f6a8885a308d3ull;

static double uniform01(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return ((rng >> 11) + 0.5) * 0x1.0p-53;
}

static double gauss(void)
{
    return sqrt(-2.0 * log(uniform01())) * cos(2.0 * M_PI * uniform01());
}

static void set_condition(cb_cmp_meta *m, const char *key, const char *value)
{
    cb_cmp_kv *kv = realloc(m->conditions, (size_t)(m->n_conditions + 1) * sizeof *kv);
    if (!kv) exit(2);
    m->conditions = kv;
    kv[m->n_conditions].key = strdup(key);
    kv[m->n_conditions].value = strdup(value);
    m->n_conditions++;
}

/* Run r of `runs`: every point's median, status and throttle word. */
static bool make_run(cb_cmp_run *run, int r, int runs, int points, const double *base, cb_msg *err)
{
    cb_cmp_run_init(run);
    char label[64];
    snprintf(label, sizeof label, "scale-run-%04d", r);
    if (!cb_cmp_run_begin_dir(run, label, err)) return false;
    cb_cmp_meta *m = &run->dirs[0].meta;
    m->present = true;
    m->complete = true;
    snprintf(m->git_sha, sizeof m->git_sha, "%012x", 0xabc000 + r);
    snprintf(m->started, sizeof m->started, "2027-03-%02dT%02d:%02d:00Z", 1 + r / 1440, r / 60 % 24,
             r % 60);
    snprintf(m->hostname, sizeof m->hostname, "scale");
    snprintf(m->started, sizeof m->started, "2027-03-%02dT%02d:%02d:00Z", 1 + r / 1440, r / 60 % 24,
             r % 60);
    snprintf(m->device, sizeof m->device, "NVIDIA H200");
    set_condition(m, "device.uuid", "GPU-scale");
    set_condition(m, "telemetry.driver_version", r >= runs * 8 / 10 ? "580.200" : "580.159");
    set_condition(m, "build.type", "Release");
    bool throttled = uniform01() < 0.01;
    for (int p = 0; p < points; p++) {
        char axes[32];
        snprintf(axes, sizeof axes, "n=%d", p);
        const char *bench = p % 7 == 0 ? "matmul/pipelined" : "vecadd/float4_per_thread";
        cb_cmp_point *pt = cb_cmp_run_add_point(run, bench, axes, "ok", NULL, err);
        if (!pt) return false;
        double t = base[p] * exp(0.005 * gauss());
        if (p % 100 == 0 && r >= runs * 6 / 10) t *= 1.05;
        if (r >= runs * 8 / 10) t *= 1.03;
        if (throttled) t *= 1.1, pt->throttle = strdup("sw_power_cap");
        pt->facts.median_s = t;
        pt->facts.ci_lo_s = t * 0.998, pt->facts.ci_hi_s = t * 1.002;
        pt->facts.sm_clock_median_mhz = throttled ? 1500 : 1980;
        snprintf(pt->timer, sizeof pt->timer, "event");
        pt->batch = 1;
    }
    return true;
}

/* Store `runs` runs, 50 per transaction. */
static bool store_all(cb_history *h, int runs, int points, const double *base, cb_msg *err)
{
    bool ok = true;
    cb_hist_add_opts ao = {"scale/NVIDIA H200", false};
    for (int r = 0; ok && r < runs; r++) {
        if (r % 50 == 0) ok = h->db->ops->begin_write(h->db, err);
        cb_cmp_run run;
        cb_hist_added out;
        ok = ok && make_run(&run, r, runs, points, base, err) &&
             cb_hist_store_run(h->db, &run, run.dirs[0].path, &ao, &out, err);
        cb_cmp_run_free(&run);
        if (ok && (r % 50 == 49 || r == runs - 1)) ok = h->db->ops->exec(h->db, "COMMIT", err);
    }
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: history_scale DB_URL [--runs N] [--points N]\n");
        return 2;
    }
    int runs = 1000, points = 700;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--runs") == 0) runs = atoi(argv[i + 1]);
        if (strcmp(argv[i], "--points") == 0) points = atoi(argv[i + 1]);
    }
    double *base = malloc((size_t)points * sizeof *base);
    if (!base) return 2;
    for (int p = 0; p < points; p++)
        base[p] = 2e-6 * pow(5000.0, uniform01());
    cb_hist_open_opts oo;
    cb_hist_open_opts_default(&oo);
    oo.write = true;
    cb_history *h = NULL;
    cb_msg err = {{0}};
    bool ok = cb_history_open(argv[1], &oo, &h, &err);
    double t0 = cb_now_s();
    ok = ok && store_all(h, runs, points, base, &err);
    double t = cb_now_s() - t0;
    if (!ok)
        fprintf(stderr, "history_scale: %s\n", err.text);
    else
        printf("history_scale: %d runs x %d points stored in %.1f s (%.1f ms per run) in %s\n",
               runs, points, t, 1e3 * t / runs, cb_history_backend(h));
    cb_history_close(h);
    free(base);
    return ok ? 0 : 2;
}
