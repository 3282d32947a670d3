/* test_compare_sim.h - synthetic runs of known structure for the compare
 * tests, in memory (cb_cmp_run) or as run directories (results.csv,
 * samples.csv with the replicate column, meta.json).
 *
 * A point's sample, in a process p, round r, sample k:
 *     t = median_i * slowdown * exp(W_p + P_p + M_pr + R_pr + S_prk)
 * W  the run-wide offset, N(0, sigma_run), one draw per process for every
 *    point (clocks, placement: what no average over points removes);
 * P  the process offset, N(0, sigma_process): what separate processes see
 *    and rounds inside one do not;
 * M  the GPU mode of a bimodal point, 0 or mode_gap with probability 1/2,
 *    drawn per round (on the H200 it alternates between rounds inside one
 *    process: 46.1 vs 47.6 us at vecadd 2^24);
 * R  the round offset of a fresh setup, N(0, sigma_round);
 * S  within-round noise, an AR(1) series with log-sd sigma_sample and lag-1
 *    correlation rho (samples taken back to back are alike);
 * then rounded to the timer's tick (the H200's event timer: 32 ns). The
 * medians span 4 us to 1 ms geometrically over the points; every tenth
 * point is bimodal when bimodal is set. Header-only: static functions for
 * the test files that include it. */
#ifndef CB_TEST_COMPARE_SIM_H
#define CB_TEST_COMPARE_SIM_H

#include "compare.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct sim_model {
    int points, rounds, samples;
    double sigma_sample, rho, sigma_round, sigma_process;
    double sigma_run;            /* run-wide offset per process (0: none)    */
    double median_lo, median_hi; /* the medians' range (0: 4 us to 1 ms) */
    bool bimodal;
    double mode_gap; /* log offset of the second mode */
    double tick;     /* timer resolution in seconds, 0: none */
    double slowdown; /* factor on every time (1: none) */
} sim_model;

static uint64_t sim_rng = 0x5EED;

static inline double sim_uniform(void)
{
    uint64_t z = (sim_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * 0x1.0p-53; /* in (0, 1) */
}

static inline double sim_normal(void)
{
    return sqrt(-2.0 * log(sim_uniform())) * cos(6.283185307179586 * sim_uniform());
}

/* The H200-like default: 200 points, 5 rounds of 20 samples, 1% sample
 * noise with rho 0.5, 0.3% between rounds, every tenth point bimodal at
 * +3.2%, a 32 ns tick, no process offset. */
static inline sim_model sim_default(void)
{
    return (sim_model){.points = 200,
                       .rounds = 5,
                       .samples = 20,
                       .sigma_sample = 0.01,
                       .rho = 0.5,
                       .sigma_round = 0.003,
                       .sigma_process = 0.0,
                       .bimodal = true,
                       .mode_gap = log(47.6 / 46.1),
                       .tick = 32e-9,
                       .slowdown = 1.0};
}

static inline double sim_median(const sim_model *m, int i)
{
    double lo = m->median_lo > 0 ? m->median_lo : 4e-6, hi = m->median_hi > 0 ? m->median_hi : 1e-3;
    return lo * pow(hi / lo, (double)i / (m->points > 1 ? m->points - 1 : 1));
}

static inline void sim_axes(char *buf, size_t len, int i)
{
    snprintf(buf, len, "i=%d", i);
}

/* Two benchmarks, so groups and geomeans have something to do. */
static const char *sim_bench(int i)
{
    return i % 2 ? "sim/odd" : "sim/even";
}

/* One process's times for point i: rounds x samples into t[]; `run` the
 * process's run-wide offset (log). */
static inline void sim_point_times_at(const sim_model *m, int i, double *t, double run)
{
    double base = sim_median(m, i) * m->slowdown * exp(run + m->sigma_process * sim_normal());
    for (int r = 0; r < m->rounds; r++) {
        double mode = m->bimodal && i % 10 == 5 && sim_uniform() < 0.5 ? m->mode_gap : 0.0;
        double level = base * exp(mode + m->sigma_round * sim_normal());
        double z = sim_normal();
        for (int k = 0; k < m->samples; k++) {
            if (k > 0) z = m->rho * z + sqrt(1.0 - m->rho * m->rho) * sim_normal();
            double v = level * exp(m->sigma_sample * z);
            if (m->tick > 0) v = fmax(m->tick, m->tick * round(v / m->tick));
            t[r * m->samples + k] = v;
        }
    }
}

static inline void sim_point_times(const sim_model *m, int i, double *t)
{
    sim_point_times_at(m, i, t, 0.0);
}

/* Append one process (a directory) to `run`, in memory. */
static inline bool sim_add_process(cb_cmp_run *run, const sim_model *m)
{
    cb_msg err;
    if (!cb_cmp_run_begin_dir(run, "sim", &err)) return false;
    run->dirs[run->n_dirs - 1].rounds = m->rounds;
    double *t = malloc((size_t)m->rounds * m->samples * sizeof *t);
    bool ok = t != NULL;
    char axes[32];
    double wide = m->sigma_run > 0.0 ? m->sigma_run * sim_normal() : 0.0;
    for (int i = 0; ok && i < m->points; i++) {
        sim_axes(axes, sizeof axes, i);
        cb_cmp_point *p = cb_cmp_run_add_point(run, sim_bench(i), axes, "ok", NULL, &err);
        ok = p != NULL;
        if (!ok) break;
        snprintf(p->timer, sizeof p->timer, "event");
        p->batch = 1;
        sim_point_times_at(m, i, t, wide);
        for (int s = 0; ok && s < m->rounds * m->samples; s++)
            ok = cb_cmp_point_add_time(p, t[s], s / m->samples, &err);
    }
    free(t);
    return ok;
}

/* Write one process as a schema-2 run directory `dir` (which must not
 * exist). `meta_extra` is spliced into meta.json's top level (may be ""). */
static inline bool sim_write_dir(const char *dir, const sim_model *m, const char *device,
                                 const char *meta_extra)
{
    char path[1024];
    if (mkdir(dir, 0700) != 0) return false;
    snprintf(path, sizeof path, "%s/results.csv", dir);
    FILE *r = fopen(path, "w");
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    FILE *s = fopen(path, "w");
    snprintf(path, sizeof path, "%s/meta.json", dir);
    FILE *j = fopen(path, "w");
    double *t = malloc((size_t)m->rounds * m->samples * sizeof *t);
    bool ok = r && s && j && t;
    if (ok) {
        fputs("schema_version,benchmark,family,axes,status,reason,timer,cache,batch,samples,"
              "median_s,note,device,device_uuid,replicates,throttle\n",
              r);
        fputs("benchmark,axes,sample,time_s,cupti_s,batch,device,replicate,sm_clock_mhz,"
              "throttle\n",
              s);
        char axes[32];
        for (int i = 0; i < m->points; i++) {
            sim_axes(axes, sizeof axes, i);
            sim_point_times(m, i, t);
            fprintf(r, "2,%s,sim,%s,ok,,event,cold,1,%d,%.9g,,0,GPU-sim,%d,none\n", sim_bench(i),
                    axes, m->rounds * m->samples, sim_median(m, i), m->rounds);
            for (int k = 0; k < m->rounds * m->samples; k++)
                fprintf(s, "%s,%s,%d,%.9g,,1,0,%d,1980,none\n", sim_bench(i), axes, k, t[k],
                        k / m->samples);
        }
        fprintf(j,
                "{\"schema_version\": 2, \"git_sha\": \"sim\", \"device\": {\"name\": \"%s\", "
                "\"uuid\": \"GPU-sim\"}, \"cuda\": {\"driver_api_version\": \"13.0\"}%s}\n",
                device, meta_extra);
    }
    if (r) ok = fclose(r) == 0 && ok;
    if (s) ok = fclose(s) == 0 && ok;
    if (j) ok = fclose(j) == 0 && ok;
    free(t);
    return ok;
}

#endif
