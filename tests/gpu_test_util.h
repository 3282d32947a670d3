/* gpu_test_util.h - shared by the GPU tests: device discovery with ctest's
 * skip code (driving a point is bench_test_util.h's). */
#ifndef CB_GPU_TEST_UTIL_H
#define CB_GPU_TEST_UTIL_H

#include "bench_test_util.h"
#include "device.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

/* Device 0 (or ctest's skip code, as cb_test_require_gpu) and a stream to
 * drive the test's points on; the test destroys it at the end. */
static inline cudaStream_t cb_test_gpu_stream(cb_device_info *dev, const char *name)
{
    cb_test_require_gpu(dev, name);
    cudaStream_t s;
    CB_CHECK(cudaStreamCreate(&s) == cudaSuccess);
    return s;
}

/* Delete what a run wrote into `dir` (results.csv, samples.csv, meta.json);
 * the directory stays (a test may write into it again, then rmdir it). */
static inline void cb_test_remove_run(const char *dir)
{
    const char *files[] = {"results.csv", "samples.csv", "meta.json"};
    char path[1024];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
}

#endif
