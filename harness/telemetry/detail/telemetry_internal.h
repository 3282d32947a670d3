/* telemetry_internal.h - the run's NVML state, shared by telemetry.c and
 * clock_lock.c (private to the telemetry layer). */
#ifndef CB_TELEMETRY_INTERNAL_H
#define CB_TELEMETRY_INTERNAL_H

#include "telemetry.h"
#include "telemetry_device.h"

struct cb_telemetry {
    cb_telemetry_options opt;
    bool nvml_open;
    cb_nvml nvml;
    char reason[CB_MSG_LEN]; /* why nothing is sampled; "" while sampling */
    char driver_version[CB_NVML_STRING_LEN], nvml_version[CB_NVML_STRING_LEN];
    char driver_error[96], nvml_error[96], count_error[96];
    int n_devices;
    cb_nvml_device_info *devices;
    bool *matched;              /* per device: one of the run's CUDA devices */
    int current;                /* the device the sampler reads, -1 none      */
    char unmatched[CB_MSG_LEN]; /* run devices NVML does not see  */
    cb_sampler *sampler;
    /* The opt-in clock lock (clock_lock.c). */
    unsigned lock_asked_mhz; /* --lock-clocks; 0: not asked            */
    unsigned lock_mhz;       /* held now; 0 once reset                 */
    bool *locked;            /* per device: locked by this run          */
    bool lock_reset_ok;      /* every reset so far succeeded            */
};

#endif
