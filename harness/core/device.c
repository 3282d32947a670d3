/* device.c - the one place that reads device attributes, and the peaks. */
#include "device.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Is an NVIDIA driver installed at all? The runtime answers "driver
 * version is insufficient" both for an old driver and for none, which
 * misleads on a machine that has none (a CI runner, a laptop). */
static bool driver_library_present(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!h) return false;
    dlclose(h);
    return true;
}

int cb_device_count(cb_msg *why)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        if ((err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice) &&
            !driver_library_present())
            cb_msg_set(why, "no NVIDIA driver on this machine (libcuda.so.1 not found)");
        else
            cb_msg_set(why, "no usable CUDA device: %s (%s)", cudaGetErrorString(err),
                       cudaGetErrorName(err));
        (void)cudaGetLastError(); /* clear the sticky-free error state */
        return 0;
    }
    if (n == 0) cb_msg_set(why, "the CUDA driver reports no devices");
    return n;
}

static void format_uuid(const cudaUUID_t *u, char *buf, size_t len)
{
    const unsigned char *b = (const unsigned char *)u->bytes;
    snprintf(buf, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

/* PCIe generation from a sysfs speed string such as "32.0 GT/s PCIe". */
static int pcie_gen_from_speed(double gts)
{
    static const double rates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    for (int g = 0; g < CB_ARRAY_LEN(rates); g++)
        if (gts > rates[g] - 0.1 && gts < rates[g] + 0.1) return g + 1;
    return 0;
}

static int read_sysfs_number(const char *bus_id, const char *file, double *out)
{
    char path[256];
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/%s", bus_id, file);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fscanf(f, "%lf", out) == 1;
    fclose(f);
    return ok;
}

/* The CUDA runtime does not expose the PCIe link; Linux sysfs does, without
 * needing NVML (which the build machines lack). */
static void read_pcie_link(cb_device_info *d)
{
    char lower[32];
    size_t i = 0;
    for (; d->pci_bus_id[i] && i + 1 < sizeof lower; i++) {
        char c = d->pci_bus_id[i];
        lower[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    lower[i] = '\0';
    double v;
    if (read_sysfs_number(lower, "current_link_speed", &v)) d->pcie_gen = pcie_gen_from_speed(v);
    if (read_sysfs_number(lower, "current_link_width", &v)) d->pcie_width = (int)v;
    if (read_sysfs_number(lower, "max_link_speed", &v)) d->pcie_max_gen = pcie_gen_from_speed(v);
    if (read_sysfs_number(lower, "max_link_width", &v)) d->pcie_max_width = (int)v;
}

#define CB_ATTR(field, attr) CB_CUDA(cudaDeviceGetAttribute(&d->field, attr, ordinal))

cb_status cb_device_query(int ordinal, cb_device_info *d, cb_msg *why)
{
    memset(d, 0, sizeof *d);
    d->ordinal = ordinal;
    struct cudaDeviceProp prop;
    CB_CUDA(cudaGetDeviceProperties(&prop, ordinal));
    snprintf(d->name, sizeof d->name, "%s", prop.name);
    format_uuid(&prop.uuid, d->uuid, sizeof d->uuid);
    CB_CUDA(cudaDeviceGetPCIBusId(d->pci_bus_id, (int)sizeof d->pci_bus_id, ordinal));
    d->cc_major = prop.major;
    d->cc_minor = prop.minor;
    d->sm_count = prop.multiProcessorCount;
    d->max_threads_per_block = prop.maxThreadsPerBlock;
    d->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    d->max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
    d->warp_size = prop.warpSize;
    d->smem_per_block = prop.sharedMemPerBlock;
    d->smem_per_block_optin = prop.sharedMemPerBlockOptin;
    d->smem_per_sm = prop.sharedMemPerMultiprocessor;
    d->regs_per_sm = prop.regsPerMultiprocessor;
    d->l2_bytes = (size_t)prop.l2CacheSize;
    d->global_mem_bytes = prop.totalGlobalMem;
    d->mem_bus_width_bits = prop.memoryBusWidth;
    d->async_engines = prop.asyncEngineCount;
    /* CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes remain. */
    CB_ATTR(mem_clock_khz, cudaDevAttrMemoryClockRate);
    CB_ATTR(sm_clock_khz, cudaDevAttrClockRate);
    CB_CUDA(cudaDriverGetVersion(&d->driver_version));
    CB_CUDA(cudaRuntimeGetVersion(&d->runtime_version));
    read_pcie_link(d);
    return CB_OK;
}

double cb_device_peak_dram_gbps(const cb_device_info *d)
{
    /* Double data rate: two transfers per memory clock over the whole bus. */
    if (d->mem_clock_khz <= 0 || d->mem_bus_width_bits <= 0) return 0.0;
    return 2.0 * d->mem_clock_khz * 1e3 * (d->mem_bus_width_bits / 8.0) / 1e9;
}

double cb_device_peak_pcie_gbps(const cb_device_info *d)
{
    static const double gts[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    int g = d->pcie_gen;
    if (g < 1 || g > 6 || d->pcie_width <= 0) return 0.0;
    double efficiency = g <= 2 ? 8.0 / 10.0 : g <= 5 ? 128.0 / 130.0 : 242.0 / 256.0;
    return gts[g] * d->pcie_width * efficiency / 8.0;
}

int cb_device_fp32_lanes_per_sm(int cc_major, int cc_minor)
{
    switch (cc_major) {
    case 6:
        return cc_minor == 0 ? 64 : 128;
    case 7:
        return 64;
    case 8:
        return cc_minor == 0 ? 64 : 128;
    case 9:
    case 10:
    case 11:
    case 12:
        return 128;
    default:
        return 0;
    }
}

double cb_device_peak_fp32_tflops(const cb_device_info *d)
{
    int lanes = cb_device_fp32_lanes_per_sm(d->cc_major, d->cc_minor);
    if (lanes == 0 || d->sm_clock_khz <= 0) return 0.0;
    /* One FMA = 2 flops per lane per clock. */
    return d->sm_count * (double)lanes * 2.0 * d->sm_clock_khz * 1e3 / 1e12;
}
