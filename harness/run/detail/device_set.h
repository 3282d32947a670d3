/* device_set.h - the devices of one run, from `--device N|all|N,M`. */
#ifndef CB_DEVICE_SET_H
#define CB_DEVICE_SET_H

#include "device.h"

#define CB_MAX_RUN_DEVICES 64

typedef struct cb_device_set {
    int n;
    cb_device_info info[CB_MAX_RUN_DEVICES];
    const cb_device_info *ptr[CB_MAX_RUN_DEVICES];
} cb_device_set;

/* Resolve `spec` ("0", "all", "0,2") against the machine. CB_OK with the
 * set filled: n == 0 when there is no usable device and none was asked for
 * by name (`given` false), the reason in *no_device. CB_SKIP (a usage
 * error: the CLI exits 2) for a malformed spec or an ordinal the machine
 * lacks; CB_FAIL when a device cannot be queried. The message in *why. */
cb_status cb_device_set_resolve(const char *spec, bool given, cb_device_set *ds, cb_msg *no_device,
                                cb_msg *why);

#endif
