/* counters_presets.c - what `--metrics sol|memory|compute` collects.
 *
 * Names are CUPTI's (the Nsight Compute metric names: `unit__counter.rollup
 * .submetric`). Pass counts on GH100 (CUPTI 13.0's host API, no GPU
 * needed to ask): sol 14, memory 5, compute 5, all three together 15.
 * Most of sol's come from sm__throughput (8 passes alone: it is the highest
 * of many SM sub-throughputs) and the SASS instruction counts behind the
 * FLOPs. */
#include "counters_presets.h"

#include "cb_common.h"
#include "counters.h"

#include <stddef.h>
#include <string.h>

#define ONE(name)                                                                                  \
    {                                                                                              \
        name, NULL, NULL                                                                           \
    }
#define TENSOR_PIPE                                                                                \
    {                                                                                              \
        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",                          \
            "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", NULL         \
    }

/* Speed of light: how close the point came to each unit's peak, as Nsight
 * Compute's "GPU Speed Of Light Throughput" section reads it (the same
 * metrics, elapsed cycles for DRAM, L2 and SM, active cycles for L1 and the
 * tensor pipe), plus the work the counters saw for the work model: DRAM
 * bytes and FLOPs. FLOPs: 2 per FMA, 1 per add or multiply, per thread
 * (SASS counts, predicated-off lanes left out), plus the tensor cores'
 * operations by source type. */
static const cb_counters_entry sol_entries[] = {
    {.names = ONE("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
     .role = CB_COUNTERS_ROLE_SOL_DRAM},
    {.names = ONE("lts__throughput.avg.pct_of_peak_sustained_elapsed"),
     .role = CB_COUNTERS_ROLE_SOL_L2},
    {.names = ONE("l1tex__throughput.avg.pct_of_peak_sustained_active"),
     .role = CB_COUNTERS_ROLE_SOL_L1},
    {.names = ONE("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
     .role = CB_COUNTERS_ROLE_SOL_SM},
    {.names = TENSOR_PIPE, .role = CB_COUNTERS_ROLE_SOL_TENSOR},
    {.names = ONE("dram__bytes.sum"), .role = CB_COUNTERS_ROLE_DRAM_BYTES},
    /* The range's GPU time and SM clock in the replay: what to compare with
     * the timed median and the samples' clocks. */
    {.names = ONE("gpu__time_duration.sum")},
    {.names = ONE("sm__cycles_elapsed.avg.per_second")},
    /* Thread instructions: instructions per element of a streaming kernel. */
    {.names = ONE("smsp__thread_inst_executed.sum")},
    {.names = ONE("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"),
     .role = CB_COUNTERS_ROLE_FLOPS,
     .weight = 2},
    {.names = ONE("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"),
     .role = CB_COUNTERS_ROLE_FLOPS},
    {.names = ONE("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"),
     .role = CB_COUNTERS_ROLE_FLOPS},
    {.names = ONE("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"),
     .role = CB_COUNTERS_ROLE_FLOPS,
     .weight = 2},
    {.names = ONE("smsp__sass_thread_inst_executed_op_dadd_pred_on.sum"),
     .role = CB_COUNTERS_ROLE_FLOPS},
    {.names = ONE("smsp__sass_thread_inst_executed_op_dmul_pred_on.sum"),
     .role = CB_COUNTERS_ROLE_FLOPS},
    /* Tensor-core operations by source type. Chips split them differently
     * (GH100: src_fp16 holds both accumulators; GA100 and AD10x count
     * dst_fp16 and dst_fp32 apart; Turing lumps fp16/bf16/tf32 into one),
     * so each entry is left out where a broader one already counts it. */
    {.names = ONE("sm__ops_path_tensor_src_fp16.sum"), .role = CB_COUNTERS_ROLE_FLOPS},
    {.names = ONE("sm__ops_path_tensor_src_fp16_dst_fp16.sum"),
     .role = CB_COUNTERS_ROLE_FLOPS,
     .unless = "sm__ops_path_tensor_src_fp16.sum"},
    {.names = ONE("sm__ops_path_tensor_src_fp16_dst_fp32.sum"),
     .role = CB_COUNTERS_ROLE_FLOPS,
     .unless = "sm__ops_path_tensor_src_fp16.sum"},
    {.names = ONE("sm__ops_path_tensor_src_bf16_dst_fp32.sum"), .role = CB_COUNTERS_ROLE_FLOPS},
    {.names = ONE("sm__ops_path_tensor_src_tf32_dst_fp32.sum"), .role = CB_COUNTERS_ROLE_FLOPS},
    {.names = ONE("sm__ops_path_tensor_src_fp16_bf16_tf32_dst_fp32.sum"),
     .role = CB_COUNTERS_ROLE_FLOPS},
    {.names = ONE("sm__ops_path_tensor_src_fp64.sum"), .role = CB_COUNTERS_ROLE_FLOPS},
    {.names = ONE("sm__ops_path_tensor_src_fp8.sum"), .role = CB_COUNTERS_ROLE_FLOPS},
    {.names = ONE("sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp16.sum"),
     .role = CB_COUNTERS_ROLE_FLOPS,
     .unless = "sm__ops_path_tensor_src_fp8.sum"},
    {.names = ONE("sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp32.sum"),
     .role = CB_COUNTERS_ROLE_FLOPS,
     .unless = "sm__ops_path_tensor_src_fp8.sum"},
};

/* Memory: bytes per level, how well each request used its sectors, hit
 * rates, and shared-memory bank conflicts (reads and writes apart: the
 * ldmatrix rung's conflicts were never attributed to one or the other). */
static const cb_counters_entry memory_entries[] = {
    {.names = ONE("dram__bytes.sum"), .role = CB_COUNTERS_ROLE_DRAM_BYTES},
    {.names = ONE("dram__bytes_read.sum")},
    {.names = ONE("dram__bytes_write.sum")},
    {.names = ONE("lts__t_bytes.sum")},
    {.names = ONE("l1tex__t_bytes.sum")},
    {.names = ONE("lts__t_sector_hit_rate.pct")},
    {.names = ONE("l1tex__t_sector_hit_rate.pct")},
    /* Sector efficiency: % of each fetched 32-byte sector's bytes used. */
    {.names = ONE("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct")},
    {.names = ONE("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct")},
    /* Sectors over requests: 4 for one float per thread, 16 for float4. */
    {.names = ONE("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")},
    {.names = ONE("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")},
    {.names = ONE("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")},
    {.names = ONE("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum")},
    {.names = ONE("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")},
    {.names = ONE("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")},
};

/* Compute: how busy the issue slots were, achieved occupancy, the
 * instruction mix by pipe, and each pipe's share of active cycles. */
static const cb_counters_entry compute_entries[] = {
    {.names = ONE("sm__inst_executed.sum")},
    {.names = ONE("smsp__thread_inst_executed.sum")},
    {.names = ONE("sm__issue_active.avg.pct_of_peak_sustained_active")},
    {.names = ONE("smsp__inst_executed.avg.per_cycle_active")},
    {.names = ONE("sm__warps_active.avg.pct_of_peak_sustained_active")},
    {.names = ONE("sm__inst_executed_pipe_fma.sum")},
    {.names = ONE("sm__inst_executed_pipe_alu.sum")},
    {.names = ONE("sm__inst_executed_pipe_lsu.sum")},
    {.names = ONE("sm__inst_executed_pipe_fp64.sum")},
    {.names = ONE("sm__inst_executed_pipe_tensor.sum")},
    {.names = ONE("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active")},
    {.names = ONE("sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active")},
    {.names = ONE("sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active")},
    {.names = ONE("sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active")},
    {.names = TENSOR_PIPE},
};

const cb_counters_preset cb_counters_presets[] = {
    {"sol",
     "speed of light: DRAM, L2, L1, SM and tensor-pipe throughput as % of peak; DRAM bytes "
     "and FLOPs against the work model",
     sol_entries, CB_ARRAY_LEN(sol_entries)},
    {"memory",
     "bytes per level, hit rates, sector efficiency, sectors per request, shared-memory bank "
     "conflicts",
     memory_entries, CB_ARRAY_LEN(memory_entries)},
    {"compute", "issue slots, achieved occupancy, instruction mix and pipe shares", compute_entries,
     CB_ARRAY_LEN(compute_entries)},
};
const int cb_counters_n_presets = CB_ARRAY_LEN(cb_counters_presets);

const cb_counters_preset *cb_counters_preset_find(const char *name)
{
    for (int i = 0; i < cb_counters_n_presets; i++)
        if (strcmp(cb_counters_presets[i].name, name) == 0) return &cb_counters_presets[i];
    return NULL;
}

/* Where a role's value goes: its results.csv column and the field of
 * cb_counters_values that holds it. One table for both, so that a column
 * and its field cannot drift apart. */
static const struct {
    const char *column;
    size_t field; /* offsetof(cb_counters_values, ...) */
} roles[] = {
    [CB_COUNTERS_ROLE_SOL_DRAM] = {"sol_dram_pct", offsetof(cb_counters_values, sol_dram_pct)},
    [CB_COUNTERS_ROLE_SOL_L2] = {"sol_l2_pct", offsetof(cb_counters_values, sol_l2_pct)},
    [CB_COUNTERS_ROLE_SOL_L1] = {"sol_l1_pct", offsetof(cb_counters_values, sol_l1_pct)},
    [CB_COUNTERS_ROLE_SOL_SM] = {"sol_sm_pct", offsetof(cb_counters_values, sol_sm_pct)},
    [CB_COUNTERS_ROLE_SOL_TENSOR] = {"sol_tensor_pct",
                                     offsetof(cb_counters_values, sol_tensor_pct)},
    [CB_COUNTERS_ROLE_DRAM_BYTES] = {"dram_bytes", offsetof(cb_counters_values, dram_bytes)},
    [CB_COUNTERS_ROLE_FLOPS] = {"measured_flops"}, /* a sum of terms (counters_sol.c) */
};

const char *cb_counters_role_column(cb_counters_role role)
{
    if ((int)role <= 0 || (int)role >= CB_ARRAY_LEN(roles)) return NULL;
    return roles[role].column;
}

double *cb_counters_role_field(cb_counters_role role, cb_counters_values *v)
{
    if (role == CB_COUNTERS_ROLE_FLOPS || !cb_counters_role_column(role)) return NULL;
    return (double *)((char *)v + roles[role].field);
}
