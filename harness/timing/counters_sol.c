/* counters_sol.c - the results.csv figures from a pass's values, and the
 * work model held against them.
 *
 * Each resolved metric carries the role its preset gave it
 * (counters_presets.c): a SOL column takes its metric's value as is,
 * dram_bytes likewise, and measured_flops is the weighted sum of every
 * FLOP term the chip has (2 per FMA). A FLOP term CUPTI could not evaluate
 * (NAN) leaves measured_flops NAN rather than a sum that quietly lacks it.
 * The SIMT terms are SASS instruction counts (smsp__sass_*), which need
 * the kernel's code instrumented; seen on an H200 with CUDA 13.0's range
 * profiler, they read 0 for a vector add and an FP32 GEMM alike, so every
 * FLOP term at 0 means "not counted", not "no FLOPs": left empty too. */
#include "counters_session.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void cb_counters_fill_figures(const cb_counters_chip *chip, cb_counters_values *v)
{
    double flops = 0;
    int terms = 0;
    bool flops_ok = true, counted = false;
    for (int i = 0; i < chip->n && v->values; i++) {
        double x = v->values[i];
        if (chip->role[i] == CB_COUNTERS_ROLE_FLOPS) {
            flops += chip->weight[i] * x;
            flops_ok &= isfinite(x);
            terms++;
            counted |= x != 0;
        } else {
            double *field = cb_counters_role_field(chip->role[i], v);
            if (field) *field = x;
        }
    }
    v->measured_flops = terms > 0 && flops_ok && counted ? flops : NAN;
}

/* "DRAM bytes 1.52x" when measured / model is off by more than the
 * tolerance either way; nothing when a figure is missing or zero. */
static bool ratio_note(const char *what, double measured, double model, char *buf, size_t len)
{
    if (!isfinite(measured) || !isfinite(model) || model <= 0) return false;
    double ratio = measured / model;
    if (fabs(ratio - 1.0) <= CB_COUNTERS_MODEL_TOLERANCE) return false;
    snprintf(buf, len, "%s %.2fx", what, ratio);
    return true;
}

bool cb_counters_model_note(const cb_counters_values *v, double model_bytes, double model_flops,
                            char *buf, size_t len)
{
    if (!v || v->status != CB_OK || len == 0) return false;
    char bytes[48] = "", flops[48] = "";
    bool b = ratio_note("DRAM bytes", v->dram_bytes, model_bytes, bytes, sizeof bytes);
    bool f = ratio_note("FLOPs", v->measured_flops, model_flops, flops, sizeof flops);
    if (!b && !f) return false;
    snprintf(buf, len, "counters: %s%s%s the work model's", bytes, b && f ? ", " : "", flops);
    return true;
}
