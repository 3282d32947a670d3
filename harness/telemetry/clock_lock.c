/* clock_lock.c - the opt-in SM clock lock (--lock-clocks MHZ): every GPU the
 * run samples is locked at one SM clock through NVML, so a comparison on a
 * user's own machine is not at the mercy of boost and power caps, and the
 * lock is reset on every way out: the end of the run, exit(), and the
 * second Ctrl-C (signals.c's fatal hook) — nvbench's --lock-clocks does
 * the same with its own NVML calls. Needs the driver's permission (root,
 * or the admin's nvidia-smi -acp UNRESTRICTED); never used by default.
 * Tested against the fake NVML library only. */
#include "telemetry.h"

#include "telemetry_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one run that holds a lock (for the exit and signal paths). */
static cb_telemetry *g_locked;

static void reset_all(cb_telemetry *t)
{
    const cb_nvml *n = &t->nvml;
    for (int i = 0; i < t->n_devices; i++) {
        if (!t->locked[i]) continue;
        /* Nothing can be reported from an exit path; the meta.json of a
         * normal end says whether the reset went through. */
        t->lock_reset_ok &=
            n->fn.DeviceResetGpuLockedClocks(t->devices[i].handle) == CB_NVML_SUCCESS;
        t->locked[i] = false;
    }
}

void cb_telemetry_unlock_clocks(cb_telemetry *t)
{
    if (!t || !t->lock_mhz) return;
    reset_all(t);
    t->lock_mhz = 0;
    if (g_locked == t) g_locked = NULL;
}

void cb_telemetry_unlock_for_exit(void)
{
    if (g_locked) cb_telemetry_unlock_clocks(g_locked);
}

cb_status cb_telemetry_lock_clocks(cb_telemetry *t, unsigned mhz, cb_msg *why)
{
    if (!t || !t->nvml_open || !t->sampler) {
        cb_msg_set(why, "--lock-clocks needs NVML and a sampled GPU: %s",
                   cb_telemetry_unavailable_reason(t) ? cb_telemetry_unavailable_reason(t)
                                                      : "none");
        return CB_FAIL;
    }
    const cb_nvml *n = &t->nvml;
    if (!n->fn.DeviceSetGpuLockedClocks || !n->fn.DeviceResetGpuLockedClocks) {
        cb_msg_set(why, "--lock-clocks: this NVML has no nvmlDeviceSetGpuLockedClocks");
        return CB_FAIL;
    }
    if (!t->locked) t->locked = calloc((size_t)t->n_devices, sizeof *t->locked);
    if (!t->locked) {
        cb_msg_set(why, "out of host memory");
        return CB_FAIL;
    }
    t->lock_asked_mhz = mhz;
    t->lock_mhz = mhz;
    t->lock_reset_ok = true;
    g_locked = t;
    static bool registered;
    if (!registered) registered = atexit(cb_telemetry_unlock_for_exit) == 0;
    for (int i = 0; i < t->n_devices; i++) {
        if (!t->matched[i]) continue;
        cb_nvmlReturn_t rc = n->fn.DeviceSetGpuLockedClocks(t->devices[i].handle, mhz, mhz);
        if (rc == CB_NVML_SUCCESS) {
            t->locked[i] = true;
            continue;
        }
        char text[128];
        cb_nvml_error_text(n, rc, text, sizeof text);
        cb_msg_set(why,
                   "--lock-clocks %u: nvmlDeviceSetGpuLockedClocks on %s: %s (it needs root or "
                   "`nvidia-smi -acp UNRESTRICTED`)",
                   mhz, t->devices[i].uuid, text);
        cb_telemetry_unlock_clocks(t);
        return CB_FAIL;
    }
    return CB_OK;
}

void cb_telemetry_write_lock_json(cb_json *j, const cb_telemetry *t)
{
    cb_json_kv_object_begin(j, "clock_lock");
    cb_json_kv_bool(j, "asked", t && t->lock_asked_mhz > 0);
    if (t && t->lock_asked_mhz > 0) {
        cb_json_kv_int(j, "sm_mhz", t->lock_asked_mhz);
        cb_json_kv_bool(j, "held", t->lock_mhz > 0);
        cb_json_kv_bool(j, "reset_ok", t->lock_reset_ok);
    }
    cb_json_object_end(j);
}
