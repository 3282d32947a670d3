/* vecadd_host.c - c = a + b on the CPU, split over POSIX threads.
 *
 * The baseline that runs on any machine, and the way CI drives the whole
 * pipeline (runner, statistics, sinks, reports) for real without a GPU.
 * Work model as on the GPU: 12 bytes per element. The note says the
 * threads, the cores and the vector ISA of the add loop (cpu_isa.h). */
#include "vecadd_host.h"

#include "cb_random.h"
#include "cpu_isa.h"
#include "host_slices.h"
#include "mem_budget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const cb_axis_def cb_vecadd_host_axes[CB_VECADD_HOST_N_AXES] = {
    CB_VECADD_N_AXIS("2^10:2^24:x4"),
    {.name = "threads",
     .kind = CB_AXIS_INT,
     .defaults = "all",
     .choices = "all",
     .min_value = 1,
     .help = "CPU threads; `all` = every online core"},
};

/* Below this many elements per thread, starting a thread costs more than
 * the adds it would do. */
#define MIN_ELEMS_PER_THREAD 65536

typedef struct host_state {
    float *a, *b, *c;
    size_t n;
    int threads;
    uint64_t seed_a, seed_b;
} host_state;

/* The timed loop, one clone per ISA (cpu_isa.h). */
CB_CPU_CLONES static void add_range(const float *restrict a, const float *restrict b,
                                    float *restrict c, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++)
        c[i] = a[i] + b[i];
}

/* Slices of the two jobs: fill the inputs and poison c, or add. */
static void fill_slice(void *ctx, int slice, size_t begin, size_t end)
{
    (void)slice;
    host_state *st = ctx;
    for (size_t i = begin; i < end; i++) {
        st->a[i] = cb_random_value(st->seed_a, i);
        st->b[i] = cb_random_value(st->seed_b, i);
        st->c[i] = NAN;
    }
}

static void add_slice(void *ctx, int slice, size_t begin, size_t end)
{
    (void)slice;
    host_state *st = ctx;
    add_range(st->a, st->b, st->c, begin, end);
}

cb_status cb_vecadd_host_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                               cb_point_info *info, cb_msg *why)
{
    size_t n = (size_t)cb_point_int(p, "n");
    int64_t want = cb_point_int(p, "threads");
    int threads = want == CB_AXIS_WORD ? ctx->host_threads : (int)want;
    size_t useful = (n + MIN_ELEMS_PER_THREAD - 1) / MIN_ELEMS_PER_THREAD;
    if ((size_t)threads > useful) threads = (int)useful;
    if (threads < 1) threads = 1;
    if (threads > CB_SLICES_MAX) threads = CB_SLICES_MAX;
    /* a, b and c: 3 n floats, counted so that n = 2^62 cannot wrap. */
    cb_status fit = cb_mem_check_host(cb_mem_bytes(cb_mem_bytes(n, 3), sizeof(float)),
                                      CB_MEM_HOST_SHARE, "host memory", why);
    if (fit != CB_OK) return fit;
    host_state *st = cb_mem_state_new(sizeof *st, "out of host memory", why);
    if (!st) return CB_SKIP;
    *state = st;
    st->n = n;
    st->threads = threads;
    st->seed_a = cb_mix64(ctx->seed ^ 0xa);
    st->seed_b = cb_mix64(ctx->seed ^ 0xb);
    st->a = malloc(n * sizeof(float));
    st->b = malloc(n * sizeof(float));
    st->c = malloc(n * sizeof(float));
    if (!st->a || !st->b || !st->c) {
        cb_msg_set(why, "cannot allocate %.2f GiB of host memory", 3.0 * n * 4 / 1073741824.0);
        return CB_SKIP;
    }
    /* Writing every page here also keeps first-touch page faults out of the
     * timed runs. */
    (void)cb_run_slices(st->n, st->threads, fill_slice, st);
    info->occupancy = -1;
    /* On the H200's host the CI after the 1 s budget was 0.85-1.6% from
     * 1024 to 2^24 elements with every core. */
    if (threads > 1) info->target_ci_rel = CB_HOST_THREADS_TARGET_CI;
    snprintf(info->note, sizeof info->note, "%d thread%s of %ld cores, %s code", threads,
             threads == 1 ? "" : "s", sysconf(_SC_NPROCESSORS_ONLN), cb_cpu_isa_dispatched());
    return CB_OK;
}

cb_status cb_vecadd_host_run(void *state, cudaStream_t stream, cb_msg *why)
{
    (void)stream;
    host_state *st = state;
    if (!cb_run_slices(st->n, st->threads, add_slice, st))
        cb_msg_set(why, "pthread_create failed; ran the slices inline");
    return CB_OK;
}

cb_status cb_vecadd_host_verify(void *state, double *error, cb_msg *why)
{
    host_state *st = state;
    double worst = 0;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < st->n; i++) {
        /* Recompute from the generator, not from a and b: a wrong input
         * buffer must not make a wrong output look right. */
        float want = cb_random_value(st->seed_a, i) + cb_random_value(st->seed_b, i);
        if (st->c[i] != want) {
            if (!bad) first = i;
            bad++;
            double e = isfinite(st->c[i]) ? fabs((double)st->c[i] - want) : INFINITY;
            if (e > worst) worst = e;
        }
    }
    *error = worst;
    if (bad) {
        cb_msg_set(why, "%zu of %zu elements wrong, first at index %zu", bad, st->n, first);
        return CB_FAIL;
    }
    return CB_OK;
}

void cb_vecadd_host_teardown(void *state)
{
    host_state *st = state;
    free(st->a);
    free(st->b);
    free(st->c);
    free(st);
}
