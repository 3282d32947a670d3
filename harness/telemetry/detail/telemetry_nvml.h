/* telemetry_nvml.h - NVML, loaded at run time.
 *
 * cubench never links libnvidia-ml: it opens the library with dlopen when a
 * run starts, so the binary builds and runs where no driver is installed.
 * CUBENCH_NVML_LIBRARY names another library (the tests point it at
 * tests/fake_nvml). Every call through the table is checked by its caller;
 * cb_nvml_error_text turns a return code into NVML's own words. */
#ifndef CB_TELEMETRY_NVML_H
#define CB_TELEMETRY_NVML_H

#include "cb_common.h"
#include "nvml_table.h"

#include <stddef.h>

#define CB_NVML_DEFAULT_LIBRARY "libnvidia-ml.so.1"
#define CB_NVML_LIBRARY_ENV     "CUBENCH_NVML_LIBRARY"

typedef struct cb_nvml {
    void *lib; /* dlopen handle; NULL when closed */
    cb_nvml_table fn;
    char path[512]; /* what was opened */
} cb_nvml;

/* Open `path` (NULL: $CUBENCH_NVML_LIBRARY, else libnvidia-ml.so.1), resolve
 * the entry points and call nvmlInit_v2. False with a reason (no library, a
 * required symbol missing, nvmlInit failing); nothing stays open then. */
bool cb_nvml_open(cb_nvml *n, const char *path, cb_msg *why);

/* nvmlShutdown and dlclose; safe on a closed or never-opened table. */
void cb_nvml_close(cb_nvml *n);

/* "Not Supported (3)": NVML's string for `rc` and the code. */
void cb_nvml_error_text(const cb_nvml *n, cb_nvmlReturn_t rc, char *buf, size_t len);

/* Call an optional entry point: a symbol the library lacks answers
 * NVML_ERROR_FUNCTION_NOT_FOUND like a call that failed. */
#define CB_NVML_CALL(n, name, ...)                                                                 \
    ((n)->fn.name ? (n)->fn.name(__VA_ARGS__) : CB_NVML_ERROR_FUNCTION_NOT_FOUND)

#endif
