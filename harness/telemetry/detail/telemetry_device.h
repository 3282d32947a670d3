/* telemetry_device.h - what NVML says about one GPU, read once per run:
 * power limits, application and maximum clocks, persistence, ECC and MIG
 * modes, the PCIe link, and which power reading it offers. Every field
 * whose call fails stays unknown (null in meta.json) with NVML's error
 * text beside it. */
#ifndef CB_TELEMETRY_DEVICE_H
#define CB_TELEMETRY_DEVICE_H

#include "json_writer.h"
#include "telemetry_sampler.h"

#include <stdio.h>

enum { CB_NVML_MAX_FIELD_ERRORS = 20 };

typedef struct cb_nvml_device_info {
    int index; /* NVML's index (not necessarily CUDA's ordinal) */
    cb_nvmlDevice_t handle;
    char uuid[CB_NVML_STRING_LEN]; /* "GPU-..."; matched to CUDA's by text   */
    char name[CB_NVML_STRING_LEN];
    double power_limit_w;                          /* enforced; NAN unknown                   */
    double power_default_limit_w;                  /* NAN unknown                             */
    long long app_clock_sm_mhz, app_clock_mem_mhz; /* -1 unknown for all ints  */
    long long max_clock_sm_mhz, max_clock_mem_mhz;
    int persistence_mode, ecc_current, mig_current; /* 0 off, 1 on, -1 unknown */
    long long pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;
    cb_power_source power; /* the power reading the sampler will use */
    int n_errors;
    struct {
        const char *field;
        char text[96];
    } errors[CB_NVML_MAX_FIELD_ERRORS];
} cb_nvml_device_info;

/* Every field unknown (a device whose handle NVML refused). */
void cb_nvml_device_unknown(cb_nvml_device_info *d, int index);

/* Read everything about `dev`; never fails (failures are fields' errors). */
void cb_nvml_device_query(const cb_nvml *n, cb_nvmlDevice_t dev, int index,
                          cb_nvml_device_info *out);

/* One object of meta.json's telemetry.devices array. */
void cb_nvml_device_write_json(cb_json *j, const cb_nvml_device_info *d, bool sampled);

/* Two lines for `cubench env`. */
void cb_nvml_device_print(FILE *f, const cb_nvml_device_info *d);

#endif
