/* results_columns.c - every column of results.csv, in file order, with the
 * cell it writes (results_columns.h). A statistic of an untimed row (skip,
 * fail) is empty; so is every telemetry cell of a row without telemetry. */
#include "results_columns.h"

#include "metrics_csv.h"

#include <math.h>
#include <string.h>

static bool timed(const cb_result *r)
{
    return r->summary.n > 0;
}

/* A statistic: empty when the row was not timed. */
static void stat_cell(cb_csv_row *row, const cb_result *r, double v)
{
    cb_csv_num(row, timed(r) ? v : NAN);
}

/* A telemetry figure: empty without telemetry. */
static void tele_cell(cb_csv_row *row, const cb_result *r, double v)
{
    cb_csv_num(row, r->telemetry.valid ? v : NAN);
}

static void w_schema(cb_csv_row *row, const cb_result *r)
{
    (void)r;
    cb_csv_int(row, CB_SCHEMA_VERSION);
}
static void w_benchmark(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->bench->name);
}
static void w_family(cb_csv_row *row, const cb_result *r)
{
    char family[64];
    const char *slash = strchr(r->bench->name, '/');
    size_t len = slash ? (size_t)(slash - r->bench->name) : strlen(r->bench->name);
    if (len >= sizeof family) len = sizeof family - 1;
    memcpy(family, r->bench->name, len);
    family[len] = '\0';
    cb_csv_str(row, family);
}
static void w_axes(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->axes);
}
static void w_status(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, cb_status_name(r->status));
}
static void w_reason(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->reason);
}
static void w_timer(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->timer);
}
static void w_cache(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->cache);
}
static void w_batch(cb_csv_row *row, const cb_result *r)
{
    if (timed(r))
        cb_csv_int(row, r->batch);
    else
        cb_csv_str(row, NULL);
}
static void w_samples(cb_csv_row *row, const cb_result *r)
{
    cb_csv_int(row, r->summary.n);
}
static void w_median(cb_csv_row *row, const cb_result *r)
{
    stat_cell(row, r, r->summary.median);
}
static void w_min(cb_csv_row *row, const cb_result *r)
{
    stat_cell(row, r, r->summary.min);
}
static void w_max(cb_csv_row *row, const cb_result *r)
{
    stat_cell(row, r, r->summary.max);
}
static void w_q1(cb_csv_row *row, const cb_result *r)
{
    stat_cell(row, r, r->summary.q1);
}
static void w_q3(cb_csv_row *row, const cb_result *r)
{
    stat_cell(row, r, r->summary.q3);
}
static void w_mean(cb_csv_row *row, const cb_result *r)
{
    stat_cell(row, r, r->summary.mean);
}
static void w_stddev(cb_csv_row *row, const cb_result *r)
{
    stat_cell(row, r, r->summary.stddev);
}
static void w_ci_lo(cb_csv_row *row, const cb_result *r)
{
    stat_cell(row, r, r->summary.ci_lo);
}
static void w_ci_hi(cb_csv_row *row, const cb_result *r)
{
    stat_cell(row, r, r->summary.ci_hi);
}
static void w_ci_rel_half(cb_csv_row *row, const cb_result *r)
{
    stat_cell(row, r, r->summary.ci_rel_half);
}
static void w_cupti_median(cb_csv_row *row, const cb_result *r)
{
    cb_csv_num(row, r->cupti_median_s);
}
static void w_overhead(cb_csv_row *row, const cb_result *r)
{
    stat_cell(row, r, r->summary.median - r->cupti_median_s);
}
static void w_kernels(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->kernels);
}
static void w_bytes(cb_csv_row *row, const cb_result *r)
{
    cb_csv_num(row, r->bytes);
}
static void w_flops(cb_csv_row *row, const cb_result *r)
{
    cb_csv_num(row, r->flops);
}
static void w_gbps(cb_csv_row *row, const cb_result *r)
{
    cb_csv_num(row, r->gbps);
}
static void w_tflops(cb_csv_row *row, const cb_result *r)
{
    cb_csv_num(row, r->tflops);
}
static void w_peak(cb_csv_row *row, const cb_result *r)
{
    cb_csv_num(row, r->peak);
}
static void w_peak_unit(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->peak_unit);
}
static void w_pct_peak(cb_csv_row *row, const cb_result *r)
{
    cb_csv_num(row, r->pct_peak);
}
static void w_ref_benchmark(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->ref_benchmark);
}
static void w_pct_ref(cb_csv_row *row, const cb_result *r)
{
    cb_csv_num(row, r->pct_ref);
}
static void w_occupancy(cb_csv_row *row, const cb_result *r)
{
    cb_csv_num(row, r->occupancy);
}
static void w_verify_error(cb_csv_row *row, const cb_result *r)
{
    cb_csv_num(row, r->verify_error);
}
static void w_note(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->note);
}
static void w_device(cb_csv_row *row, const cb_result *r)
{
    if (r->device >= 0)
        cb_csv_int(row, r->device);
    else
        cb_csv_str(row, NULL);
}
static void w_device_uuid(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->device_uuid);
}
static void w_replicates(cb_csv_row *row, const cb_result *r)
{
    if (r->replicates > 0)
        cb_csv_int(row, r->replicates);
    else
        cb_csv_str(row, NULL);
}
static void w_sm_min(cb_csv_row *row, const cb_result *r)
{
    tele_cell(row, r, r->telemetry.sm_clock_min_mhz);
}
static void w_sm_median(cb_csv_row *row, const cb_result *r)
{
    tele_cell(row, r, r->telemetry.sm_clock_median_mhz);
}
static void w_sm_max(cb_csv_row *row, const cb_result *r)
{
    tele_cell(row, r, r->telemetry.sm_clock_max_mhz);
}
static void w_mem_clock(cb_csv_row *row, const cb_result *r)
{
    tele_cell(row, r, r->telemetry.mem_clock_median_mhz);
}
static void w_power(cb_csv_row *row, const cb_result *r)
{
    tele_cell(row, r, r->telemetry.power_mean_w);
}
static void w_temp(cb_csv_row *row, const cb_result *r)
{
    tele_cell(row, r, r->telemetry.temp_max_c);
}
static void w_throttle(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->telemetry.valid ? r->telemetry.throttle : NULL);
}
static void w_peak_source(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->peak_source);
}
static void w_kind(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, cb_point_kind_name(r->kind));
}
static void w_key_figure(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->key_figure ? r->key_figure->name : NULL);
}
static void w_key_rule(cb_csv_row *row, const cb_result *r)
{
    const char *rule = NULL;
    if (r->key_figure) rule = r->key_figure->rule == CB_KEY_LARGEST ? "largest" : "best";
    cb_csv_str(row, rule);
}
/* Phase times: empty for a point that never reached setup. */
static void phase_cell(cb_csv_row *row, const cb_result *r, double v)
{
    cb_csv_num(row, r->point.expanded ? v : NAN);
}
static void w_setup_s(cb_csv_row *row, const cb_result *r)
{
    phase_cell(row, r, r->phases.setup_s);
}
static void w_verify_s(cb_csv_row *row, const cb_result *r)
{
    phase_cell(row, r, r->phases.verify_s);
}
static void w_warmup_s(cb_csv_row *row, const cb_result *r)
{
    phase_cell(row, r, r->phases.warmup_s);
}
static void w_sampling_s(cb_csv_row *row, const cb_result *r)
{
    phase_cell(row, r, r->phases.sampling_s);
}
static void w_teardown_s(cb_csv_row *row, const cb_result *r)
{
    phase_cell(row, r, r->phases.teardown_s);
}
static void w_throttled_samples(cb_csv_row *row, const cb_result *r)
{
    if (r->telemetry.valid)
        cb_csv_int(row, r->throttled_samples);
    else
        cb_csv_str(row, NULL);
}
static void w_throttle_wait(cb_csv_row *row, const cb_result *r)
{
    tele_cell(row, r, r->throttle_wait_s);
}

const cb_results_column cb_results_table[] = {
    {"schema_version", w_schema},
    {"benchmark", w_benchmark},
    {"family", w_family},
    {"axes", w_axes},
    {"status", w_status},
    {"reason", w_reason},
    {"timer", w_timer},
    {"cache", w_cache},
    {"batch", w_batch},
    {"samples", w_samples},
    {"median_s", w_median},
    {"min_s", w_min},
    {"max_s", w_max},
    {"q1_s", w_q1},
    {"q3_s", w_q3},
    {"mean_s", w_mean},
    {"stddev_s", w_stddev},
    {"ci_lo_s", w_ci_lo},
    {"ci_hi_s", w_ci_hi},
    {"ci_rel_half", w_ci_rel_half},
    {"cupti_median_s", w_cupti_median},
    {"overhead_s", w_overhead},
    {"kernels", w_kernels},
    {"bytes", w_bytes},
    {"flops", w_flops},
    {"gbps", w_gbps},
    {"tflops", w_tflops},
    {"peak", w_peak},
    {"peak_unit", w_peak_unit},
    {"pct_peak", w_pct_peak},
    {"ref_benchmark", w_ref_benchmark},
    {"pct_ref", w_pct_ref},
    {"occupancy", w_occupancy},
    {"verify_error", w_verify_error},
    {"note", w_note},
    /* schema 2 */
    {"device", w_device},
    {"device_uuid", w_device_uuid},
    {"replicates", w_replicates},
    {"sm_clock_min_mhz", w_sm_min},
    {"sm_clock_median_mhz", w_sm_median},
    {"sm_clock_max_mhz", w_sm_max},
    {"mem_clock_median_mhz", w_mem_clock},
    {"power_mean_w", w_power},
    {"temp_max_c", w_temp},
    {"throttle", w_throttle},
    {"peak_source", w_peak_source},
    /* schema 3 */
    {"kind", w_kind},
    {"key_figure", w_key_figure},
    {"key_rule", w_key_rule},
    {"setup_s", w_setup_s},
    {"verify_s", w_verify_s},
    {"warmup_s", w_warmup_s},
    {"sampling_s", w_sampling_s},
    {"teardown_s", w_teardown_s},
    {"throttled_samples", w_throttled_samples},
    {"throttle_wait_s", w_throttle_wait},
    /* --metrics: the point's hardware counters (metrics_csv.h) */
    {"sol_dram_pct", cb_metrics_cell_sol_dram},
    {"sol_l2_pct", cb_metrics_cell_sol_l2},
    {"sol_l1_pct", cb_metrics_cell_sol_l1},
    {"sol_sm_pct", cb_metrics_cell_sol_sm},
    {"sol_tensor_pct", cb_metrics_cell_sol_tensor},
    {"dram_bytes", cb_metrics_cell_dram_bytes},
    {"measured_flops", cb_metrics_cell_measured_flops},
    {"metrics_status", cb_metrics_cell_status},
    {"metrics_reason", cb_metrics_cell_reason},
    {"metrics_kernels", cb_metrics_cell_kernels},
    {"metrics_passes", cb_metrics_cell_passes},
    {"metrics_wall_s", cb_metrics_cell_wall},
};

const int cb_results_column_count = (int)(sizeof cb_results_table / sizeof cb_results_table[0]);
