/* cli_env.c - `cubench env`: the environment doctor. */
#include "cli.h"
#include "blas_info.h"
#include "build_info.h"
#include "capability.h"
#include "cpu_isa.h"
#include "cupti_timer.h"
#include "device.h"
#include "host_info.h"
#include "library_versions.h"
#include "options.h"
#include "registry.h"
#include "telemetry.h"

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct env_args {
    bool no_cupti;
} env_args;

static const cb_option env_options[] = {
    CB_OPTION_FLAG("no-cupti", offsetof(env_args, no_cupti), "do not try CUPTI activity tracing"),
};

static const cb_env_var env_env[] = {
    CB_ENV_VAR_NVML_LIBRARY,
    {"CUDA_VISIBLE_DEVICES", "which GPUs the CUDA runtime shows"},
};

static const cb_command env_command = {
    .name = "env",
    .synopsis = "[--no-cupti]",
    .about = "Prints the host, the CUDA driver and runtime, every device (name, compute\n"
             "capability, SMs, memory, L2, clocks, PCIe link, theoretical peaks, the\n"
             "build's code for it and which benchmarks can run there and why the others\n"
             "cannot), the GPU code in the build, the CPU baselines' ISA and BLAS,\n"
             "whether CUPTI activity tracing works, and what NVML (telemetry) sees: power\n"
             "limits, clocks, persistence, ECC, MIG, PCIe.",
    CB_COMMAND_OPTIONS(env_options),
    CB_COMMAND_ENV(env_env),
    .epilogue = "exit codes: 0 a CUDA device is usable; 2 bad usage; 3 no usable CUDA device",
};

static void print_device(const cb_device_info *d)
{
    printf("device %d: %s\n", d->ordinal, d->name);
    printf("  uuid %s, pci %s\n", d->uuid, d->pci_bus_id);
    printf("  compute capability %d.%d, %d SMs, %d threads/SM, %d threads/block max\n", d->cc_major,
           d->cc_minor, d->sm_count, d->max_threads_per_sm, d->max_threads_per_block);
    printf("  memory %.1f GiB, bus %d bit, memory clock %.0f MHz, L2 %.1f MiB\n",
           d->global_mem_bytes / 1073741824.0, d->mem_bus_width_bits, d->mem_clock_khz / 1e3,
           d->l2_bytes / 1048576.0);
    printf("  SM clock %.0f MHz (peak), shared memory %zu KiB/block (opt-in), %zu KiB/SM\n",
           d->sm_clock_khz / 1e3, d->smem_per_block_optin / 1024, d->smem_per_sm / 1024);
    if (d->pcie_gen)
        printf("  PCIe gen %d x%d (max gen %d x%d)\n", d->pcie_gen, d->pcie_width, d->pcie_max_gen,
               d->pcie_max_width);
    else
        printf("  PCIe link: unknown (no sysfs entry for %s)\n", d->pci_bus_id);
    printf("  peaks: DRAM %.0f GB/s, PCIe %.1f GB/s per direction, FP32 %.1f TFLOP/s\n",
           cb_device_peak_dram_gbps(d), cb_device_peak_pcie_gbps(d), cb_device_peak_fp32_tflops(d));
}

/* "75,80,86" -> "sm_75 sm_80 sm_86" ("none" when empty). */
static void arch_names(const char *list, const char *prefix, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t at = 0; list[at] && used < len;) {
        size_t n = strcspn(list + at, ",");
        int w = snprintf(buf + used, len - used, "%s%s%.*s", used ? " " : "", prefix, (int)n,
                         list + at);
        if (w < 0) break;
        used += (size_t)w;
        at += n + (list[at + n] == ',');
    }
    if (!buf[0]) snprintf(buf, len, "none");
}

static void print_build(void)
{
    char sass[256], ptx[128];
    arch_names(CB_CUDA_SASS_ARCHS, "sm_", sass, sizeof sass);
    arch_names(CB_CUDA_PTX_ARCHS, "compute_", ptx, sizeof ptx);
    printf("build: CUDA %s; SASS %s; PTX %s (%s)\n", CB_CUDA_TOOLKIT_VERSION, sass, ptx,
           strcmp(CB_CUDA_ARCH_ORIGIN, "default") == 0
               ? "default: every sm_XY >= 75 this toolkit builds + PTX of the newest"
               : "CMAKE_CUDA_ARCHITECTURES=" CB_CUDA_ARCHITECTURES);
}

static void print_cpu_baselines(const cb_host_info *h)
{
    char isa[96], blas[160], why[256] = "";
    cb_cpu_isa_features(isa, sizeof isa);
    /* the BLAS the build found, loaded as matmul/host_cblas loads it */
    const bool loaded = cb_blas_load(why, sizeof why);
    cb_blas_info b;
    cb_blas_info_read(&b);
    cb_blas_describe(&b, blas, sizeof blas);
    if (!loaded && why[0]) snprintf(blas, sizeof blas, "%.158s", why);
    printf("CPU baselines: %d cores, %s code (CPU has: %s)\n", h->cores, cb_cpu_isa_dispatched(),
           isa[0] ? isa : "unknown");
    printf("BLAS (matmul/host_cblas): %s%s%s%s\n", blas, b.library[0] ? ", " : "", b.library,
           b.loaded && !b.optimized ? " - not a fair CPU reference" : "");
}

/* Per family: which CUDA benchmarks device `d` can run; then every one it
 * cannot, with the reason (bench.h needs, or no code in the build). */
static void print_runnable(const cb_device_info *d)
{
    char code[96];
    cb_build_code_describe(cb_device_cc(d), code, sizeof code);
    printf("  code in this build: %s\n", code);
    cb_msg no_code = {{0}};
    if (cb_build_runs_on(d, &no_code) != CB_OK) {
        printf("  benchmarks: no CUDA benchmark can run here: %s\n", no_code.text);
        return;
    }
    int total = 0, can = 0;
    for (int f = 0; f < cb_registry_family_count(); f++) {
        const cb_family *fam = cb_registry_family(f);
        int fam_total = 0, fam_can = 0;
        char names[512] = "";
        size_t used = 0;
        for (int i = 0; i < fam->count; i++) {
            const cb_bench *b = &fam->benches[i];
            if (b->target != CB_TARGET_CUDA) continue;
            fam_total++;
            cb_msg why = {{0}};
            if (cb_bench_can_run(b, d, &why) != CB_OK) continue;
            fam_can++;
            const char *variant = strchr(b->name, '/') ? strchr(b->name, '/') + 1 : b->name;
            int w = snprintf(names + used, sizeof names - used, " %s", variant);
            if (w > 0 && (size_t)w < sizeof names - used) used += (size_t)w;
        }
        total += fam_total;
        can += fam_can;
        if (fam_total == 0) continue;
        if (fam_can == fam_total)
            printf("    %s: all %d\n", fam->name, fam_total);
        else
            printf("    %s: %d of %d:%s\n", fam->name, fam_can, fam_total,
                   fam_can ? names : " none");
    }
    printf("  benchmarks: %d of %d CUDA benchmarks can run here (CPU baselines run anywhere)\n",
           can, total);
    for (int i = 0; i < cb_registry_count(); i++) {
        const cb_bench *b = cb_registry_get(i);
        cb_msg why = {{0}};
        if (b->target == CB_TARGET_CUDA && cb_bench_can_run(b, d, &why) != CB_OK)
            printf("    cannot: %s - %s\n", b->name, why.text);
    }
}

int cb_cli_env(const char *program, int argc, char **argv)
{
    env_args args = {0};
    cb_parsed parsed;
    int rc = cb_options_parse(&env_command, argc, argv, &args, NULL, &parsed);
    if (rc >= 0) return rc;
    bool try_cupti = !args.no_cupti;
    cb_host_info h;
    cb_host_info_read(&h);
    printf("host: %s, %s, %s\n", h.hostname, h.os, h.kernel);
    printf("cpu: %s, %d logical cores, %.1f GiB memory\n", h.cpu, h.cores,
           h.mem_bytes / 1073741824.0);
    char ver[32];
    cb_cublas_version(ver, sizeof ver);
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    printf("cuda runtime %d.%d, driver API %d.%d%s, cuBLAS %s\n", runtime / 1000,
           (runtime % 1000) / 10, driver / 1000, (driver % 1000) / 10,
           driver == 0 ? " (no driver)" : "", ver);
    print_build();
    print_cpu_baselines(&h);

    /* NVML first: it may see GPUs that CUDA cannot use (no runtime, a
     * driver mismatch), which is what a doctor wants to know. */
    cb_telemetry_options topt;
    cb_telemetry_options_defaults(&topt);
    cb_telemetry *tele = cb_telemetry_open(&topt, NULL, 0);
    fflush(stdout);
    cb_telemetry_print(stdout, tele);
    cb_telemetry_close(tele);

    cb_msg why = {{0}};
    int n = cb_device_count(&why);
    if (n == 0) {
        printf("devices: none - %s\n", why.text);
        printf("cubench can still run the CPU baseline: %s run 'vecadd/host'\n", program);
        return CB_EXIT_NO_DEVICE;
    }
    for (int i = 0; i < n; i++) {
        cb_device_info d;
        if (cb_device_query(i, &d, &why) != CB_OK) {
            printf("device %d: cannot query: %s\n", i, why.text);
            continue;
        }
        print_device(&d);
        print_runnable(&d);
    }
    if (try_cupti) {
        if (cudaSetDevice(0) == cudaSuccess && cb_cupti_start(&why)) {
            printf("CUPTI: activity tracing works\n");
            cb_cupti_stop();
        } else {
            printf("CUPTI: unavailable - %s (runs fall back to CUDA events)\n", why.text);
        }
    }
    char cupti[128];
    cb_cupti_describe(cupti, sizeof cupti);
    printf("CUPTI library: %s\n", cupti);
    return CB_EXIT_OK;
}
