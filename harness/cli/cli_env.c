/* cli_env.c - `cubench env`: the environment doctor. */
#include "cli.h"
#include "cupti_timer.h"
#include "device.h"
#include "host_info.h"
#include "library_versions.h"
#include "telemetry.h"

#include <cuda_runtime_api.h>
#include <getopt.h>
#include <stdio.h>

static void env_usage(FILE *f)
{
    fprintf(f, "usage: cubench env [--no-cupti]\n"
               "  Prints the host, the CUDA driver and runtime, every device (name, compute\n"
               "  capability, SMs, memory, L2, clocks, PCIe link, theoretical peaks) and\n"
               "  whether CUPTI activity tracing works, and what NVML (telemetry) sees: power\n"
               "  limits, clocks, persistence, ECC, MIG, PCIe. Exits 3 when no CUDA device is\n"
               "  usable.\n");
}

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

int cb_cli_env(int argc, char **argv)
{
    static const struct option opts[] = {
        {"no-cupti", no_argument, NULL, 'c'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    bool try_cupti = true;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'c')
            try_cupti = false;
        else if (c == 'h') {
            env_usage(stdout);
            return CB_EXIT_OK;
        } else {
            env_usage(stderr);
            return CB_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "cubench env: unexpected argument '%s'\n", argv[optind]);
        return CB_EXIT_USAGE;
    }
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
        printf("cubench can still run the CPU baseline: cubench run 'vecadd/host'\n");
        return CB_EXIT_NO_DEVICE;
    }
    for (int i = 0; i < n; i++) {
        cb_device_info d;
        if (cb_device_query(i, &d, &why) != CB_OK) {
            printf("device %d: cannot query: %s\n", i, why.text);
            continue;
        }
        print_device(&d);
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
