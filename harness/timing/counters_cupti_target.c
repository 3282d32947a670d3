/* counters_cupti_target.c - the target table of counters_ops.h over CUPTI's
 * range profiler (cupti_range_profiler.h), its device queries
 * (cupti_profiler_target.h, cupti_target.h) and two CUDA calls.
 *
 * The CUDA context and device handle come from the driver API through the
 * runtime's entry-point query, so cubench still links only the runtime and
 * starts on a machine without a driver (as kernels/matmul_tc_tma.cu gets
 * cuTensorMapEncodeTiled). */
#include "counters_ops.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <stdio.h>
#include <stdlib.h>

/* Ranges are not nested: per kernel (auto ranges) or one push/pop. */
#define ONE_LEVEL 1

static CUptiResult target_initialize(void)
{
    CB_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params, p);
    return cuptiProfilerInitialize(&p);
}

static void target_deinitialize(void)
{
    CB_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params, p);
    (void)cuptiProfilerDeInitialize(&p); /* at the end of the run: nothing left to do */
}

static CUptiResult target_chip_name(int device, const char **chip)
{
    CB_CUPTI_PARAMS(CUpti_Device_GetChipName_Params, p, .deviceIndex = (size_t)device);
    CUptiResult r = cuptiDeviceGetChipName(&p);
    *chip = r == CUPTI_SUCCESS ? p.pChipName : NULL;
    return r;
}

/* A driver API function through the runtime (no link to libcuda). ISO C
 * has no cast between object and function pointers: a union carries it. */
static void *driver_symbol(const char *name)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
        return NULL;
    return fn;
}

static CUptiResult target_device_supported(int device, cb_counters_support *s)
{
    union {
        void *p;
        CUresult (*fn)(CUdevice *, int);
    } get = {.p = driver_symbol("cuDeviceGet")};
    CUdevice dev = 0;
    if (!get.p || get.fn(&dev, device) != CUDA_SUCCESS) return CUPTI_ERROR_INVALID_DEVICE;
    CB_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params, p, .cuDevice = dev,
                    .api = CUPTI_PROFILER_RANGE_PROFILING);
    CUptiResult r = cuptiProfilerDeviceSupported(&p);
    s->overall = (int)p.isSupported;
    s->architecture = (int)p.architecture;
    s->sli = (int)p.sli;
    s->vgpu = (int)p.vGpu;
    s->confidential_compute = (int)p.confidentialCompute;
    s->cmp = (int)p.cmp;
    s->wsl = (int)p.wsl;
    return r;
}

static CUptiResult target_current_context(void **ctx)
{
    union {
        void *p;
        CUresult (*fn)(CUcontext *);
    } get = {.p = driver_symbol("cuCtxGetCurrent")};
    CUcontext c = NULL;
    if (!get.p || get.fn(&c) != CUDA_SUCCESS || !c) return CUPTI_ERROR_INVALID_CONTEXT;
    *ctx = c;
    return CUPTI_SUCCESS;
}

static CUptiResult target_availability(void *ctx)
{
    CB_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params, p, .ctx = ctx);
    CUptiResult r = cuptiProfilerGetCounterAvailability(&p);
    if (r != CUPTI_SUCCESS) return r;
    uint8_t *image = malloc(p.counterAvailabilityImageSize ? p.counterAvailabilityImageSize : 1);
    if (!image) return CUPTI_ERROR_OUT_OF_MEMORY;
    p.pCounterAvailabilityImage = image;
    r = cuptiProfilerGetCounterAvailability(&p);
    free(image);
    return r;
}

static CUptiResult target_enable(void *ctx, void **profiler)
{
    CB_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params, p, .ctx = ctx);
    CUptiResult r = cuptiRangeProfilerEnable(&p);
    *profiler = r == CUPTI_SUCCESS ? p.pRangeProfilerObject : NULL;
    return r;
}

static CUptiResult target_disable(void *profiler)
{
    CB_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params, p, .pRangeProfilerObject = profiler);
    return cuptiRangeProfilerDisable(&p);
}

static CUptiResult target_counter_data(void *profiler, const char *const *names, size_t n,
                                       size_t max_ranges, uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    CB_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, sz,
                    .pRangeProfilerObject = profiler, .pMetricNames = (const char **)names,
                    .numMetrics = n, .maxNumOfRanges = max_ranges,
                    .maxNumRangeTreeNodes = (uint32_t)max_ranges);
    CUptiResult r = cuptiRangeProfilerGetCounterDataSize(&sz);
    if (r != CUPTI_SUCCESS) return r;
    uint8_t *buf = calloc(1, sz.counterDataSize ? sz.counterDataSize : 1);
    if (!buf) return CUPTI_ERROR_OUT_OF_MEMORY;
    CB_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, init,
                    .pRangeProfilerObject = profiler, .counterDataSize = sz.counterDataSize,
                    .pCounterData = buf);
    r = cuptiRangeProfilerCounterDataImageInitialize(&init);
    if (r != CUPTI_SUCCESS) {
        free(buf);
        return r;
    }
    *data = buf;
    *size = sz.counterDataSize;
    return CUPTI_SUCCESS;
}

/* User replay in both scopes: cubench replays the point's enqueue, which
 * may be several kernels and copies (CUPTI's kernel replay would save and
 * restore memory around each kernel instead). */
static CUptiResult target_set_config(void *profiler, const uint8_t *config, size_t config_size,
                                     uint8_t *data, size_t data_size, cb_counters_scope scope,
                                     size_t max_ranges)
{
    CB_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params, p, .pRangeProfilerObject = profiler,
                    .configSize = config_size, .pConfig = config, .counterDataImageSize = data_size,
                    .pCounterDataImage = data,
                    .range = scope == CB_COUNTERS_PER_KERNEL ? CUPTI_AutoRange : CUPTI_UserRange,
                    .replayMode = CUPTI_UserReplay, .maxRangesPerPass = max_ranges,
                    .numNestingLevels = ONE_LEVEL, .minNestingLevel = ONE_LEVEL, .passIndex = 0,
                    .targetNestingLevel = ONE_LEVEL);
    return cuptiRangeProfilerSetConfig(&p);
}

static CUptiResult target_start(void *profiler)
{
    CB_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params, p, .pRangeProfilerObject = profiler);
    return cuptiRangeProfilerStart(&p);
}

static CUptiResult target_push(void *profiler, const char *range)
{
    CB_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params, p, .pRangeProfilerObject = profiler,
                    .pRangeName = range);
    return cuptiRangeProfilerPushRange(&p);
}

static CUptiResult target_pop(void *profiler)
{
    CB_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params, p, .pRangeProfilerObject = profiler);
    return cuptiRangeProfilerPopRange(&p);
}

static CUptiResult target_stop(void *profiler, bool *all_passes_submitted)
{
    CB_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, p, .pRangeProfilerObject = profiler);
    CUptiResult r = cuptiRangeProfilerStop(&p);
    *all_passes_submitted = r == CUPTI_SUCCESS && p.isAllPassSubmitted;
    return r;
}

static CUptiResult target_decode(void *profiler, size_t *ranges_dropped)
{
    CB_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params, p, .pRangeProfilerObject = profiler);
    CUptiResult r = cuptiRangeProfilerDecodeData(&p);
    *ranges_dropped = p.numOfRangeDropped;
    return r;
}

static CUptiResult target_ranges(const uint8_t *data, size_t size, size_t *n)
{
    CB_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, p, .pCounterDataImage = data,
                    .counterDataImageSize = size);
    CUptiResult r = cuptiRangeProfilerGetCounterDataInfo(&p);
    *n = r == CUPTI_SUCCESS ? p.numTotalRanges : 0;
    return r;
}

static bool target_synchronize(cb_msg *why)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) return true;
    cb_msg_set(why, "cudaDeviceSynchronize failed: %s (%s)", cudaGetErrorName(e),
               cudaGetErrorString(e));
    return false;
}

const cb_counters_target_ops *cb_counters_cupti_target(void)
{
    static const cb_counters_target_ops ops = {.initialize = target_initialize,
                                               .deinitialize = target_deinitialize,
                                               .chip_name = target_chip_name,
                                               .device_supported = target_device_supported,
                                               .current_context = target_current_context,
                                               .availability = target_availability,
                                               .enable = target_enable,
                                               .disable = target_disable,
                                               .counter_data = target_counter_data,
                                               .set_config = target_set_config,
                                               .start = target_start,
                                               .push = target_push,
                                               .pop = target_pop,
                                               .stop = target_stop,
                                               .decode = target_decode,
                                               .ranges = target_ranges,
                                               .synchronize = target_synchronize};
    return &ops;
}
