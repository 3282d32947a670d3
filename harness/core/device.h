/* device.h - what cubench knows about the GPU it runs on.
 *
 * Filled once by cb_device_query (device.c, the only file that asks the CUDA
 * runtime for attributes) and then read by the runner, the benchmarks, the
 * environment writer and the peak calculations.
 */
#ifndef CB_DEVICE_H
#define CB_DEVICE_H

#include "cb_common.h"

typedef struct cb_device_info {
    int ordinal;
    char name[256];
    char uuid[48];       /* "GPU-xxxxxxxx-xxxx-..."                        */
    char pci_bus_id[32]; /* "0000:65:00.0"                                */
    int cc_major, cc_minor;
    int sm_count;
    int max_threads_per_block;
    int max_threads_per_sm;
    int max_blocks_per_sm;
    int warp_size;
    size_t smem_per_block;       /* default limit, bytes                      */
    size_t smem_per_block_optin; /* after cudaFuncSetAttribute, bytes          */
    size_t smem_per_sm;
    int regs_per_sm;
    size_t l2_bytes;
    size_t global_mem_bytes;
    int mem_bus_width_bits;
    int mem_clock_khz; /* peak memory clock (cudaDevAttrMemoryClockRate)   */
    int sm_clock_khz;  /* peak SM clock (cudaDevAttrClockRate)             */
    int pcie_gen;      /* current link generation, 0 when unknown         */
    int pcie_width;    /* current link width (lanes), 0 when unknown       */
    int pcie_max_gen, pcie_max_width;
    int async_engines;
    int driver_version;  /* cudaDriverGetVersion, e.g. 13000                 */
    int runtime_version; /* cudaRuntimeGetVersion                            */
} cb_device_info;

/* Number of usable CUDA devices; 0 with a reason when there are none (no
 * driver, no device, or the runtime refuses). */
int cb_device_count(cb_msg *why);

/* Fill `info` for device `ordinal`. */
cb_status cb_device_query(int ordinal, cb_device_info *info, cb_msg *why);

/* Theoretical peaks derived from the attributes above (formulas in
 * docs/schema.md). Each returns 0 when an input is unknown. */
double cb_device_peak_dram_gbps(const cb_device_info *d);
double cb_device_peak_pcie_gbps(const cb_device_info *d);
double cb_device_peak_fp32_tflops(const cb_device_info *d);
int cb_device_fp32_lanes_per_sm(int cc_major, int cc_minor);

#endif
