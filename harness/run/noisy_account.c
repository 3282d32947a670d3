/* noisy_account.c - why a run's noisy rows are noisy, by the kind of point
 * (noisy_account.h). */
#include "noisy_account.h"

#include <stdio.h>
#include <string.h>

cb_noisy_class cb_noisy_class_of(const cb_result *r)
{
    const char *throttle = r->telemetry.throttle;
    if (r->telemetry.valid && throttle[0] && strcmp(throttle, "none") != 0)
        return CB_NOISY_THROTTLED;
    switch (r->kind) {
    case CB_KIND_HOST_COPY:
    case CB_KIND_STAGED_COPY:
        return CB_NOISY_HOST_COPY;
    case CB_KIND_HOST:
        return CB_NOISY_HOST;
    case CB_KIND_PYTHON:
        return CB_NOISY_PYTHON;
    case CB_KIND_MULTI_GPU:
        return CB_NOISY_MULTI_GPU;
    case CB_KIND_AUTO:
    case CB_KIND_DEVICE:
        break;
    }
    return r->summary.median < CB_NOISY_SHORT_S ? CB_NOISY_SHORT : CB_NOISY_OTHER;
}

void cb_noisy_account(const cb_result *rows, int n, char *out, size_t size)
{
    static const char *const names[CB_NOISY_CLASSES] = {
        [CB_NOISY_THROTTLED] = "throttled (power, thermal or hardware slowdown)",
        [CB_NOISY_HOST_COPY] = "copies through host memory",
        [CB_NOISY_HOST] = "CPU baselines",
        [CB_NOISY_PYTHON] = "Python framework calls",
        [CB_NOISY_MULTI_GPU] = "multi-GPU",
        [CB_NOISY_SHORT] = "device points under 20 us",
        [CB_NOISY_OTHER] = "other device points",
    };
    int count[CB_NOISY_CLASSES] = {0}, noisy = 0;
    for (int i = 0; i < n; i++) {
        if (rows[i].status != CB_NOISY) continue;
        count[cb_noisy_class_of(&rows[i])]++;
        noisy++;
    }
    if (size) out[0] = '\0';
    if (noisy == 0 || size == 0) return;
    size_t used = (size_t)snprintf(out, size, "noisy rows by kind:");
    for (int c = 0, first = 1; c < CB_NOISY_CLASSES && used < size; c++) {
        if (!count[c]) continue;
        used += (size_t)snprintf(out + used, size - used, "%s %d %s", first ? "" : ",", count[c],
                                 names[c]);
        first = 0;
    }
}
