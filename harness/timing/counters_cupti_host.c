/* counters_cupti_host.c - the host table of counters_ops.h over CUPTI's
 * profiler host API (cupti_profiler_host.h): chips, metric names and
 * properties, config images and evaluation. None of it needs a GPU.
 *
 * The header includes the C++ <string> although its API is C; the timing
 * layer's C sources see an empty stand-in (detail/c_compat/string). It must
 * not run under AddressSanitizer: libcupti dlopens libnvperf_host with
 * RTLD_DEEPBIND, which the sanitizer runtime refuses (the CPU tests use a
 * stand-in table there). */
#include "counters_ops.h"

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <stdlib.h>

static CUptiResult host_chips(const char *const **names, size_t *n)
{
    CB_CUPTI_PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params, p);
    CUptiResult r = cuptiProfilerHostGetSupportedChips(&p);
    *names = r == CUPTI_SUCCESS ? p.ppChipNames : NULL;
    *n = r == CUPTI_SUCCESS ? p.numChips : 0;
    return r;
}

static CUptiResult host_open(const char *chip, void **host)
{
    CB_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params, p,
                    .profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER, .pChipName = chip);
    CUptiResult r = cuptiProfilerHostInitialize(&p);
    *host = r == CUPTI_SUCCESS ? p.pHostObject : NULL;
    return r;
}

static void host_close(void *host)
{
    CB_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params, p, .pHostObject = host);
    (void)cuptiProfilerHostDeinitialize(&p); /* nothing to do about a failure here */
}

static CUptiResult host_base_metrics(void *host, int type, const char *const **names, size_t *n)
{
    CB_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params, p, .pHostObject = host,
                    .metricType = (CUpti_MetricType)type);
    CUptiResult r = cuptiProfilerHostGetBaseMetrics(&p);
    *names = r == CUPTI_SUCCESS ? (const char *const *)p.ppMetricNames : NULL;
    *n = r == CUPTI_SUCCESS ? p.numMetrics : 0;
    return r;
}

static CUptiResult host_properties(void *host, const char *name, cb_metric_props *props)
{
    CB_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params, p, .pHostObject = host,
                    .pMetricName = name);
    CUptiResult r = cuptiProfilerHostGetMetricProperties(&p);
    props->description = r == CUPTI_SUCCESS ? p.pDescription : NULL;
    props->dim_unit = r == CUPTI_SUCCESS ? p.pDimUnit : NULL;
    props->type = (int)p.metricType;
    return r;
}

static CUptiResult host_submetrics(void *host, const char *base, int type, const char *const **subs,
                                   size_t *n)
{
    CB_CUPTI_PARAMS(CUpti_Profiler_Host_GetSubMetrics_Params, p, .pHostObject = host,
                    .metricType = (CUpti_MetricType)type, .pMetricName = base);
    CUptiResult r = cuptiProfilerHostGetSubMetrics(&p);
    *subs = r == CUPTI_SUCCESS ? (const char *const *)p.ppSubMetrics : NULL;
    *n = r == CUPTI_SUCCESS ? p.numOfSubmetrics : 0;
    return r;
}

static CUptiResult host_config(void *host, const char *const *names, size_t n, uint8_t **image,
                               size_t *size, size_t *passes)
{
    *image = NULL;
    *size = *passes = 0;
    CB_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add, .pHostObject = host,
                    .ppMetricNames = (const char **)names, .numMetrics = n);
    CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add);
    if (r != CUPTI_SUCCESS) return r;
    CB_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, sz, .pHostObject = host);
    r = cuptiProfilerHostGetConfigImageSize(&sz);
    if (r != CUPTI_SUCCESS) return r;
    uint8_t *buf = malloc(sz.configImageSize ? sz.configImageSize : 1);
    if (!buf) return CUPTI_ERROR_OUT_OF_MEMORY;
    CB_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, img, .pHostObject = host,
                    .configImageSize = sz.configImageSize, .pConfigImage = buf);
    r = cuptiProfilerHostGetConfigImage(&img);
    CB_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, np,
                    .configImageSize = sz.configImageSize, .pConfigImage = buf);
    if (r == CUPTI_SUCCESS) r = cuptiProfilerHostGetNumOfPasses(&np);
    if (r != CUPTI_SUCCESS) {
        free(buf);
        return r;
    }
    *image = buf;
    *size = sz.configImageSize;
    *passes = np.numOfPasses;
    return CUPTI_SUCCESS;
}

static CUptiResult host_evaluate(void *host, const uint8_t *data, size_t size, size_t range,
                                 const char *const *names, size_t n, double *values)
{
    CB_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, p, .pHostObject = host,
                    .pCounterDataImage = data, .counterDataImageSize = size, .rangeIndex = range,
                    .ppMetricNames = (const char **)names, .numMetrics = n,
                    .pMetricValues = values);
    return cuptiProfilerHostEvaluateToGpuValues(&p);
}

static const char *host_result_name(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) return NULL;
    return s;
}

const cb_counters_host_ops *cb_counters_cupti_host(void)
{
    static const cb_counters_host_ops ops = {.chips = host_chips,
                                             .open = host_open,
                                             .close = host_close,
                                             .base_metrics = host_base_metrics,
                                             .properties = host_properties,
                                             .submetrics = host_submetrics,
                                             .config = host_config,
                                             .evaluate = host_evaluate,
                                             .result_name = host_result_name};
    return &ops;
}
