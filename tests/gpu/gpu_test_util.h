/* gpu_test_util.h - shared by the GPU tests: device discovery with ctest's
 * skip code (driving a point is bench_test_util.h's). */
#ifndef CB_GPU_TEST_UTIL_H
#define CB_GPU_TEST_UTIL_H

#include "bench_test_util.h"
#include "device.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CB_TEST_SKIP 77

/* Query device 0 or exit with ctest's skip code, saying why. */
static inline void cb_test_require_gpu(cb_device_info *dev, const char *name)
{
    cb_msg why = {{0}};
    if (cb_device_count(&why) == 0) {
        printf("%s: skipped: %s\n", name, why.text);
        exit(CB_TEST_SKIP);
    }
    if (cb_device_query(0, dev, &why) != CB_OK) {
        printf("%s: cannot query device 0: %s\n", name, why.text);
        exit(1);
    }
    printf("%s: on %s (%d SMs)\n", name, dev->name, dev->sm_count);
}

#endif
