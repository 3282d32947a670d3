/* meta.c - writes meta.json (schema in docs/schema.md). */
#include "meta.h"

#include "blas_info.h"
#include "build_info.h"
#include "capability.h"
#include "counters.h"
#include "cpu_isa.h"
#include "cupti_timer.h"
#include "host_info.h"
#include "library_versions.h"
#include "json_writer.h"
#include "row_groups.h"
#include "telemetry.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

static void iso_time(time_t t, char *buf, size_t len)
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A CUDA version (12040) as "12.4" under key; null when the query failed or
 * answered 0 (no driver installed). */
static void kv_cuda_version(cb_json *j, const char *key, cudaError_t e, int version)
{
    if (e != cudaSuccess || version <= 0) {
        cb_json_kv_str(j, key, NULL);
        return;
    }
    char text[32];
    snprintf(text, sizeof text, "%d.%d", version / 1000, (version % 1000) / 10);
    cb_json_kv_str(j, key, text);
}

/* A comma-separated architecture list of build_info.h ("75,80") as a JSON
 * array of names ("sm_75", "sm_80"). */
static void write_arch_list(cb_json *j, const char *key, const char *prefix, const char *list)
{
    cb_json_kv_array_begin(j, key);
    char name[32];
    size_t at = 0;
    while (list[at]) {
        size_t len = strcspn(list + at, ",");
        snprintf(name, sizeof name, "%s%.*s", prefix, (int)len, list + at);
        if (len) cb_json_str(j, name);
        at += len + (list[at + len] == ',');
    }
    cb_json_array_end(j);
}

/* The CPU baselines' resources: threads, cores, vector ISA, and the BLAS
 * matmul/host_cblas runs on (what this process loaded, blas_info.h). */
static void write_cpu_baselines(cb_json *j, const cb_run_config *cfg, int cores)
{
    cb_json_kv_object_begin(j, "cpu_baselines");
    cb_json_kv_int(j, "threads", cfg->host_threads);
    cb_json_kv_int(j, "cores", cores);
    cb_json_kv_str(j, "isa", cb_cpu_isa_dispatched());
    cb_blas_info b;
    cb_blas_info_read(&b);
    cb_json_kv_object_begin(j, "blas");
    cb_json_kv_bool(j, "loaded", b.loaded);
    cb_json_kv_str(j, "vendor", b.vendor);
    cb_json_kv_bool(j, "optimized", b.optimized);
    cb_json_kv_str(j, "version", b.loaded ? b.version : NULL);
    cb_json_kv_str(j, "core", b.core[0] ? b.core : NULL);
    if (b.threads > 0)
        cb_json_kv_int(j, "threads", b.threads);
    else
        cb_json_kv_str(j, "threads", NULL);
    cb_json_kv_str(j, "library", b.library[0] ? b.library : NULL);
    cb_json_kv_str(j, "linked_at_build", CB_BLAS_LIBRARIES);
    cb_json_object_end(j);
    cb_json_object_end(j);
}

static void write_device_object(cb_json *j, const cb_device_info *d)
{
    cb_json_object_begin(j);
    cb_json_kv_int(j, "ordinal", d->ordinal);
    cb_json_kv_str(j, "name", d->name);
    cb_json_kv_str(j, "uuid", d->uuid);
    cb_json_kv_str(j, "pci_bus_id", d->pci_bus_id);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    cb_json_kv_str(j, "compute_capability", cc);
    cb_json_kv_int(j, "sm_count", d->sm_count);
    cb_json_kv_int(j, "max_threads_per_block", d->max_threads_per_block);
    cb_json_kv_int(j, "max_threads_per_sm", d->max_threads_per_sm);
    cb_json_kv_int(j, "shared_mem_per_block_optin_bytes", (long long)d->smem_per_block_optin);
    cb_json_kv_int(j, "shared_mem_per_sm_bytes", (long long)d->smem_per_sm);
    cb_json_kv_int(j, "registers_per_sm", d->regs_per_sm);
    cb_json_kv_int(j, "l2_bytes", (long long)d->l2_bytes);
    cb_json_kv_int(j, "global_mem_bytes", (long long)d->global_mem_bytes);
    cb_json_kv_int(j, "memory_bus_width_bits", d->mem_bus_width_bits);
    cb_json_kv_int(j, "memory_clock_khz", d->mem_clock_khz);
    cb_json_kv_int(j, "sm_clock_khz", d->sm_clock_khz);
    cb_json_kv_int(j, "async_engines", d->async_engines);
    char code[96];
    cb_build_code_describe(cb_device_cc(d), code, sizeof code);
    cb_json_kv_str(j, "build_code", code);
    cb_json_kv_object_begin(j, "pcie");
    cb_json_kv_int(j, "generation", d->pcie_gen);
    cb_json_kv_int(j, "width", d->pcie_width);
    cb_json_kv_int(j, "max_generation", d->pcie_max_gen);
    cb_json_kv_int(j, "max_width", d->pcie_max_width);
    cb_json_kv_str(j, "source", d->pcie_gen ? "sysfs current_link_speed/width" : "unknown");
    cb_json_object_end(j);
    cb_json_kv_object_begin(j, "peaks");
    cb_json_kv_num(j, "dram_gbps", cb_device_peak_dram_gbps(d));
    cb_json_kv_str(j, "dram_formula", "2 x memory_clock_khz x 1e3 x bus_width_bits / 8 / 1e9");
    cb_json_kv_num(j, "pcie_gbps", cb_device_peak_pcie_gbps(d));
    cb_json_kv_str(j, "pcie_formula", "GT/s(gen) x width x encoding efficiency / 8, per direction");
    cb_json_kv_num(j, "fp32_tflops", cb_device_peak_fp32_tflops(d));
    cb_json_kv_int(j, "fp32_lanes_per_sm", cb_device_fp32_lanes_per_sm(d->cc_major, d->cc_minor));
    cb_json_kv_str(j, "fp32_formula",
                   "sm_count x fp32_lanes_per_sm x 2 x sm_clock_khz x 1e3 / 1e12");
    cb_json_object_end(j);
    cb_json_object_end(j);
}

/* "device": the run's first device (what schema-1 readers look for), and
 * "devices": every device of the run (--device all|0,2), in run order. */
static void write_device(cb_json *j, const cb_run_config *cfg)
{
    if (!cfg->dev) {
        cb_json_key(j, "device");
        cb_json_null(j);
        cb_json_kv_str(j, "no_device_reason", cfg->no_device_reason);
        cb_json_kv_array_begin(j, "devices");
        cb_json_array_end(j);
        return;
    }
    cb_json_key(j, "device");
    write_device_object(j, cfg->dev);
    cb_json_kv_array_begin(j, "devices");
    if (cfg->devs)
        for (int i = 0; i < cfg->n_devs; i++)
            write_device_object(j, cfg->devs[i]);
    else
        write_device_object(j, cfg->dev);
    cb_json_array_end(j);
}

static void write_body(cb_json *j, const cb_meta *m)
{
    const cb_run_config *cfg = m->cfg;
    cb_json_kv_int(j, "schema_version", CB_SCHEMA_VERSION);
    cb_json_kv_str(j, "cubench_version", CB_VERSION);
    cb_json_kv_str(j, "git_sha", CB_GIT_SHA);
    cb_json_kv_object_begin(j, "build");
    cb_json_kv_str(j, "type", CB_BUILD_TYPE);
    cb_json_kv_str(j, "c_compiler", CB_C_COMPILER);
    cb_json_kv_str(j, "cuda_compiler", CB_CUDA_COMPILER);
    cb_json_kv_str(j, "c_flags", CB_C_FLAGS);
    cb_json_kv_str(j, "cuda_flags", CB_CUDA_FLAGS);
    cb_json_kv_str(j, "cuda_architectures", CB_CUDA_ARCHITECTURES);
    cb_json_kv_str(j, "cuda_architectures_origin", CB_CUDA_ARCH_ORIGIN);
    write_arch_list(j, "sass_architectures", "sm_", CB_CUDA_SASS_ARCHS);
    write_arch_list(j, "ptx_architectures", "compute_", CB_CUDA_PTX_ARCHS);
    write_arch_list(j, "arch_specific_sass", "sm_", CB_CUDA_ARCH_SPECIFIC_SASS);
    cb_json_kv_str(j, "cuda_toolkit_version", CB_CUDA_TOOLKIT_VERSION);
    write_arch_list(j, "toolkit_sass_architectures", "sm_", CB_CUDA_TOOLKIT_SASS_ARCHS);
    cb_json_object_end(j);

    cb_json_kv_array_begin(j, "command_line");
    for (int i = 0; i < m->argc; i++)
        cb_json_str(j, m->argv[i]);
    cb_json_array_end(j);

    char t[40];
    iso_time(m->started, t, sizeof t);
    cb_json_kv_str(j, "started", t);
    if (m->finished) {
        iso_time(m->finished, t, sizeof t);
        cb_json_kv_str(j, "finished", t);
    } else {
        cb_json_key(j, "finished");
        cb_json_null(j);
    }
    cb_json_kv_bool(j, "complete", m->complete);
    cb_json_kv_bool(j, "interrupted", m->totals.interrupted);
    cb_json_kv_object_begin(j, "totals");
    cb_json_kv_int(j, "ok", m->totals.ok);
    cb_json_kv_int(j, "noisy", m->totals.noisy);
    cb_json_kv_int(j, "skip", m->totals.skip);
    cb_json_kv_int(j, "fail", m->totals.fail);
    cb_json_object_end(j);
    cb_json_kv_bool(j, "write_failed", m->totals.write_failed);
    cb_json_kv_str(j, "stopped_early_because",
                   m->totals.stop_reason[0] ? m->totals.stop_reason : NULL);

    cb_host_info h;
    cb_host_info_read(&h);
    cb_json_kv_object_begin(j, "host");
    cb_json_kv_str(j, "hostname", h.hostname);
    cb_json_kv_str(j, "os", h.os);
    cb_json_kv_str(j, "kernel", h.kernel);
    cb_json_kv_str(j, "cpu", h.cpu);
    cb_json_kv_int(j, "cores", h.cores);
    cb_json_kv_int(j, "memory_bytes", h.mem_bytes);
    char isa[96];
    cb_cpu_isa_features(isa, sizeof isa);
    cb_json_kv_str(j, "cpu_isa", isa);
    cb_json_object_end(j);
    write_cpu_baselines(j, cfg, h.cores);

    cb_json_kv_object_begin(j, "cuda");
    /* Both versions are known without a device: the runtime is the library
     * linked in, and the driver answers 0 when none is installed. */
    int runtime = 0, driver = 0;
    cudaError_t e = cudaRuntimeGetVersion(&runtime);
    kv_cuda_version(j, "runtime_version", e, runtime);
    e = cudaDriverGetVersion(&driver);
    kv_cuda_version(j, "driver_api_version", e, driver);
    char v[32];
    cb_cublas_version(v, sizeof v);
    cb_json_kv_str(j, "cublas_version", v);
    cb_json_kv_int(j, "cupti_api_version", cb_cupti_api_version());
    cb_json_kv_str(j, "cupti_state", m->cupti_state[0] ? m->cupti_state : cb_cupti_state());
    cb_json_object_end(j);

    write_device(j, cfg);
    cb_telemetry_write_json(j, cfg->telemetry);
    cb_telemetry_write_lock_json(j, cfg->telemetry);
    cb_counters_write_json(j, cfg->counters);

    cb_json_kv_object_begin(j, "settings");
    cb_json_kv_str(j, "cache", cfg->cache == CB_CACHE_COLD ? "cold" : "hot");
    cb_json_kv_num(j, "hot_min_sample_s", cfg->hot_min_sample_s);
    cb_json_kv_int(j, "min_samples", cfg->stop.min_samples);
    cb_json_kv_int(j, "max_samples", cfg->stop.max_samples);
    cb_json_kv_num(j, "target_ci_rel_half", cfg->stop.target_rel);
    cb_json_kv_num(j, "ci_level", 0.95);
    cb_json_kv_num(j, "max_time_per_point_s", cfg->stop.max_time_s);
    /* The early stop of hopeless rounds (stats.h); 0: --full-budget. */
    cb_json_kv_num(j, "futile_share", cfg->stop.futile_share);
    cb_json_kv_num(j, "futile_factor", cfg->stop.futile_factor);
    cb_json_kv_int(j, "warmup_runs", cfg->warmup_runs);
    /* 0: auto (short points get several rounds; results.csv says how many
     * each point ran). */
    cb_json_kv_int(j, "replicates", cfg->replicates);
    cb_json_kv_bool(j, "keep_throttled", cfg->keep_throttled);
    cb_json_kv_num(j, "throttle_wait_max_s", cfg->throttle_wait_max_s);
    cb_json_kv_num(j, "cap_settle_s", cfg->cap_settle_s);
    cb_json_kv_int(j, "seed", (long long)cfg->seed);
    cb_json_kv_int(j, "host_threads", cfg->host_threads);
    cb_json_kv_str(j, "timer", cfg->cupti_primary ? "cupti" : "event");
    cb_json_kv_bool(j, "nvtx", cfg->nvtx);
    cb_json_object_end(j);
}

bool cb_meta_write(const char *dir, const cb_meta *m, cb_msg *err)
{
    char tmp[PATH_MAX + 32], final[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s/.meta.json.tmp", dir);
    snprintf(final, sizeof final, "%s/meta.json", dir);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cb_msg_set(err, "cannot write '%s': %s", tmp, strerror(errno));
        return false;
    }
    cb_json j;
    cb_json_begin(&j, f);
    write_body(&j, m);
    cb_json_end(&j);
    /* Checked at every step, and durable before the rename: a full disk
     * leaves the previous meta.json in place, never a cut one. */
    errno = 0;
    int e = cb_commit_file(f, tmp, final);
    if (e) {
        unlink(tmp);
        cb_msg_set(err, "cannot write '%s': %s", final, strerror(e));
        return false;
    }
    return true;
}
