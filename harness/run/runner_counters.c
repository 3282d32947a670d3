/* runner_counters.c - the point's metric pass (--metrics, counters.h):
 * after the last round's samples and CUPTI's view of them, before teardown,
 * the point's whole enqueue (one run) with a CUPTI range around each of its
 * kernels, replayed as often as its metrics need passes, each after an L2
 * flush when the point is cold.
 * Its outcome fills the row's counter columns, never the point's status. */
#include "runner_point.h"

#include "counters.h"
#include "l2_flush.h"
#include "signals.h"

#include <math.h>
#include <stdio.h>

typedef struct counters_replay {
    const cb_bench *b;
    void *state;
    cb_timing *t;
    bool flush;
} counters_replay;

static cb_status counters_before(void *user, cb_msg *why)
{
    counters_replay *cr = user;
    cudaStream_t s = cr->t->stream;
    if (cr->flush)
        CB_CUDA(cb_launch_l2_flush(cr->t->flush_buf, cr->t->flush_bytes, cr->t->flush_sink, s));
    CB_CUDA(cudaStreamSynchronize(s));
    return CB_OK;
}

static cb_status counters_run(void *user, cb_msg *why)
{
    counters_replay *cr = user;
    return cr->b->run(cr->state, cr->t->stream, why);
}

void cb_phase_counters(const cb_run_config *cfg, const cb_bench *b, void *state, cb_timing *t,
                       point_timing pt, int round, point_run *pr)
{
    if (!cfg->counters || !pt.cuda || b->devices > 1 || !cfg->dev) return;
    if (round != pr->rounds - 1 || pr->closed || cb_interrupted()) return;
    counters_replay cr = {.b = b, .state = state, .t = t, .flush = !pt.hot};
    cb_counters_pass pass = {
        .device = cfg->dev->ordinal, .before = counters_before, .run = counters_run, .user = &cr};
    cb_counters_values v;
    cb_counters_measure(cfg->counters, &pass, &v);
    cb_result *r = pr->r;
    r->counters = (cb_point_counters){.asked = true,
                                      .status = v.status,
                                      .kernels = v.kernels,
                                      .sol_dram_pct = v.sol_dram_pct,
                                      .sol_l2_pct = v.sol_l2_pct,
                                      .sol_l1_pct = v.sol_l1_pct,
                                      .sol_sm_pct = v.sol_sm_pct,
                                      .sol_tensor_pct = v.sol_tensor_pct,
                                      .dram_bytes = v.dram_bytes,
                                      .measured_flops = v.measured_flops,
                                      .passes = v.passes,
                                      .wall_s = v.wall_s,
                                      .n = v.values ? v.n : 0,
                                      .names = v.names,
                                      .units = v.units,
                                      .values = v.values};
    snprintf(r->counters.reason, sizeof r->counters.reason, "%s", v.reason);
    char flag[96];
    double bytes = b->bytes ? b->bytes(&r->point) : NAN,
           flops = b->flops ? b->flops(&r->point) : NAN;
    if (cb_counters_model_note(&v, bytes, flops, flag, sizeof flag)) cb_note_append(r, flag);
}
