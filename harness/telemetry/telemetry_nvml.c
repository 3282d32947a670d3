/* telemetry_nvml.c - dlopen libnvidia-ml and fill the entry-point table. */
#include "telemetry_nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dlsym returns void *; a function pointer is assigned through memcpy, the
 * ISO C way to convert between the two without a cast warning. */
static bool resolve(void *lib, const char *name, void *slot, size_t size)
{
    void *sym = dlsym(lib, name);
    if (!sym) return false;
    memcpy(slot, &sym, size);
    return true;
}

#define CB_RESOLVE(field, symbol) resolve(n->lib, symbol, &n->fn.field, sizeof n->fn.field)

bool cb_nvml_open(cb_nvml *n, const char *path, cb_msg *why)
{
    memset(n, 0, sizeof *n);
    if (!path || !path[0]) path = getenv(CB_NVML_LIBRARY_ENV);
    if (!path || !path[0]) path = CB_NVML_DEFAULT_LIBRARY;
    snprintf(n->path, sizeof n->path, "%s", path);
    (void)dlerror();
    n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        const char *e = dlerror();
        cb_msg_set(why, "cannot load NVML (%.200s)", e ? e : path);
        return false;
    }
    /* Required: without these nothing can be matched or read. */
    bool ok = CB_RESOLVE(Init, "nvmlInit_v2") && CB_RESOLVE(Shutdown, "nvmlShutdown") &&
              CB_RESOLVE(DeviceGetCount, "nvmlDeviceGetCount_v2") &&
              CB_RESOLVE(DeviceGetHandleByIndex, "nvmlDeviceGetHandleByIndex_v2") &&
              CB_RESOLVE(DeviceGetUUID, "nvmlDeviceGetUUID");
    if (!ok) {
        cb_msg_set(why,
                   "%.200s lacks a required NVML entry point (nvmlInit_v2, "
                   "nvmlDeviceGetCount_v2, ...)",
                   path);
        dlclose(n->lib);
        n->lib = NULL;
        return false;
    }
    /* Optional: a missing one leaves its fields null with the reason. */
    CB_RESOLVE(ErrorString, "nvmlErrorString");
    CB_RESOLVE(SystemGetDriverVersion, "nvmlSystemGetDriverVersion");
    CB_RESOLVE(SystemGetNVMLVersion, "nvmlSystemGetNVMLVersion");
    CB_RESOLVE(DeviceGetName, "nvmlDeviceGetName");
    CB_RESOLVE(DeviceGetClockInfo, "nvmlDeviceGetClockInfo");
    CB_RESOLVE(DeviceGetMaxClockInfo, "nvmlDeviceGetMaxClockInfo");
    CB_RESOLVE(DeviceGetApplicationsClock, "nvmlDeviceGetApplicationsClock");
    CB_RESOLVE(DeviceGetPowerUsage, "nvmlDeviceGetPowerUsage");
    CB_RESOLVE(DeviceGetFieldValues, "nvmlDeviceGetFieldValues");
    CB_RESOLVE(DeviceGetTemperature, "nvmlDeviceGetTemperature");
    CB_RESOLVE(DeviceGetEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit");
    CB_RESOLVE(DeviceGetPowerManagementDefaultLimit, "nvmlDeviceGetPowerManagementDefaultLimit");
    CB_RESOLVE(DeviceGetPersistenceMode, "nvmlDeviceGetPersistenceMode");
    CB_RESOLVE(DeviceGetEccMode, "nvmlDeviceGetEccMode");
    CB_RESOLVE(DeviceGetMigMode, "nvmlDeviceGetMigMode");
    CB_RESOLVE(DeviceGetCurrPcieLinkGeneration, "nvmlDeviceGetCurrPcieLinkGeneration");
    CB_RESOLVE(DeviceGetCurrPcieLinkWidth, "nvmlDeviceGetCurrPcieLinkWidth");
    CB_RESOLVE(DeviceGetMaxPcieLinkGeneration, "nvmlDeviceGetMaxPcieLinkGeneration");
    CB_RESOLVE(DeviceGetMaxPcieLinkWidth, "nvmlDeviceGetMaxPcieLinkWidth");
    CB_RESOLVE(DeviceGetViolationStatus, "nvmlDeviceGetViolationStatus");
    CB_RESOLVE(DeviceSetGpuLockedClocks, "nvmlDeviceSetGpuLockedClocks");
    CB_RESOLVE(DeviceResetGpuLockedClocks, "nvmlDeviceResetGpuLockedClocks");
    /* Drivers from 535 name it ...ClocksEventReasons; older ones only
     * ...ClocksThrottleReasons (same bits). */
    if (CB_RESOLVE(DeviceGetClocksEventReasons, "nvmlDeviceGetCurrentClocksEventReasons"))
        n->fn.reasons_symbol = "nvmlDeviceGetCurrentClocksEventReasons";
    else if (CB_RESOLVE(DeviceGetClocksEventReasons, "nvmlDeviceGetCurrentClocksThrottleReasons"))
        n->fn.reasons_symbol = "nvmlDeviceGetCurrentClocksThrottleReasons";

    cb_nvmlReturn_t rc = n->fn.Init();
    if (rc != CB_NVML_SUCCESS) {
        char text[128];
        cb_nvml_error_text(n, rc, text, sizeof text);
        cb_msg_set(why, "nvmlInit_v2 failed: %s", text);
        dlclose(n->lib);
        n->lib = NULL;
        return false;
    }
    return true;
}

void cb_nvml_close(cb_nvml *n)
{
    if (!n->lib) return;
    /* Its result is not kept: the run is over and meta.json written; a
     * failing shutdown leaves nothing to undo (cubench changed no setting). */
    if (n->fn.Shutdown) (void)n->fn.Shutdown();
    dlclose(n->lib);
    n->lib = NULL;
}

void cb_nvml_error_text(const cb_nvml *n, cb_nvmlReturn_t rc, char *buf, size_t len)
{
    const char *s = n->fn.ErrorString ? n->fn.ErrorString(rc) : NULL;
    if (rc == CB_NVML_ERROR_FUNCTION_NOT_FOUND && !s) s = "Function Not Found";
    snprintf(buf, len, "%s (%d)", s ? s : "NVML error", rc);
}
