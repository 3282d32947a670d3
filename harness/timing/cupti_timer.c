/* cupti_timer.c - the only file that calls CUPTI.
 *
 * Activity kinds and why each is on:
 *   CONCURRENT_KERNEL  kernel durations. Never KERNEL: it serialises kernels.
 *   MEMCPY, MEMSET     copy and set durations, and the memory kinds of copies.
 *   RUNTIME, DRIVER    not wanted for themselves (their records are discarded)
 *                      but CUPTI emits EXTERNAL_CORRELATION records only for
 *                      API calls it traces; DRIVER too because libraries and
 *                      JIT code may launch through cuLaunchKernel directly.
 *   EXTERNAL_CORRELATION  correlation id of an API call -> our sample id.
 *   MARKER             NVTX ranges, when NVTX_INJECTION64_PATH names libcupti.
 */
#define _GNU_SOURCE /* dladdr */
#include "cupti_timer.h"
#include "cupti_records.h"

#include <cuda_runtime_api.h>
#include <cupti.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Big enough that a point rarely needs more than a few; CUPTI asks for more
 * when one fills, so the size bounds memory, not the records kept. */
#define CB_CUPTI_BUFFER_BYTES ((size_t)8 << 20)
#define CB_CUPTI_BUFFER_ALIGN 8 /* activity records are 8-byte aligned */

/* Guarded by g_lock: CUPTI may deliver buffers from its own worker thread. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static cb_cupti_records *g_records;
static long g_dropped;

/* Touched only by the thread that calls start/stop/sample/collect. */
static bool g_active;
static bool g_subscribed;
static CUpti_SubscriberHandle g_subscriber;
static CUpti_ActivityKind g_enabled[8];
static int g_n_enabled;
static long g_push_errors;
static char g_state[CB_MSG_LEN] = "not started";

static const char *cb_cupti_error_name(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) return "CUPTI_ERROR_?";
    return s;
}

static void CUPTIAPI cb_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    /* On failure CUPTI drops records and counts them: the point then fails
     * with "dropped" rather than this crashing. */
    *buffer = aligned_alloc(CB_CUPTI_BUFFER_ALIGN, CB_CUPTI_BUFFER_BYTES);
    *size = *buffer ? CB_CUPTI_BUFFER_BYTES : 0;
    *max_records = 0; /* as many as fit */
}

static void CUPTIAPI cb_buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                         size_t size, size_t valid)
{
    (void)size;
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) != CUPTI_SUCCESS) dropped = 0;
    pthread_mutex_lock(&g_lock);
    g_dropped += (long)dropped;
    /* After cb_cupti_stop (at exit, say) buffers may still come: drop them. */
    if (g_records)
        cb_cupti_records_add_buffer(g_records, buffer, valid, cuptiActivityGetNextRecord);
    pthread_mutex_unlock(&g_lock);
    free(buffer);
}

/* A subscriber is how a CUPTI client claims the process; it enables no
 * callbacks, so this is never called. */
static void CUPTIAPI cb_no_callback(void *userdata, CUpti_CallbackDomain domain,
                                    CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    (void)domain;
    (void)cbid;
    (void)data;
}

static void cb_undo_start(void)
{
    for (int i = g_n_enabled - 1; i >= 0; i--)
        cuptiActivityDisable(g_enabled[i]);
    g_n_enabled = 0;
    if (g_subscribed) cuptiUnsubscribe(g_subscriber);
    g_subscribed = false;
    pthread_mutex_lock(&g_lock);
    cb_cupti_records_free(g_records);
    g_records = NULL;
    pthread_mutex_unlock(&g_lock);
}

/* The reason for the meta.json state and the run's log line. */
static void cb_refused(cb_msg *why, const char *what, CUptiResult r, const char *extra)
{
    const char *hint = "";
    switch (r) {
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        hint = "; another CUPTI client (Nsight Systems/Compute, a debugger or sanitizer) "
               "holds the process: use --no-cupti";
        break;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        hint = "; tracing is not permitted for this user or VM";
        break;
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_INVALID_DEVICE:
        hint = "; no usable CUDA driver or device";
        break;
    default:
        break;
    }
    cb_msg_set(why, "CUPTI unavailable: %s: %s%s%s", what, cb_cupti_error_name(r),
               extra ? extra : "", hint);
    snprintf(g_state, sizeof g_state, "unavailable: %s: %s%s", what, cb_cupti_error_name(r),
             extra ? extra : "");
}

bool cb_cupti_start(cb_msg *why)
{
    static const struct {
        CUpti_ActivityKind kind;
        const char *name;
        bool required;
    } kinds[] = {
        {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true},
        {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", true},
        {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", true},
        {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", true},
        {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", true},
        {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION", true},
        /* NVTX markers are a convenience, not a timing source. */
        {CUPTI_ACTIVITY_KIND_MARKER, "MARKER", false},
    };
    if (g_active) return true;

    char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = "";
    CUpti_SubscriberParams params = {.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
                                     .subscriberName = "cubench",
                                     .oldSubscriberName = old,
                                     .oldSubscriberSize = sizeof old};
    CUptiResult r = cuptiSubscribe_v2(&g_subscriber, cb_no_callback, NULL, &params);
    if (r != CUPTI_SUCCESS) {
        char extra[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = "";
        int n_dev = 0;
        cudaError_t ce = cudaGetDeviceCount(&n_dev);
        if (old[0])
            snprintf(extra, sizeof extra, " (held by \"%.*s\")", (int)sizeof old - 1, old);
        else if (ce != cudaSuccess || n_dev == 0) /* CUPTI only says UNKNOWN then */
            snprintf(extra, sizeof extra, " (no CUDA device: %s)",
                     ce != cudaSuccess ? cudaGetErrorName(ce) : "none found");
        cb_refused(why, "cuptiSubscribe", r, extra);
        return false;
    }
    g_subscribed = true;

    pthread_mutex_lock(&g_lock);
    g_records = cb_cupti_records_new();
    g_dropped = 0;
    bool have_store = g_records != NULL;
    pthread_mutex_unlock(&g_lock);
    if (!have_store) {
        cb_undo_start();
        cb_msg_set(why, "CUPTI unavailable: out of memory");
        snprintf(g_state, sizeof g_state, "unavailable: out of memory");
        return false;
    }

    r = cuptiActivityRegisterCallbacks(cb_buffer_requested, cb_buffer_completed);
    if (r != CUPTI_SUCCESS) {
        cb_undo_start();
        cb_refused(why, "cuptiActivityRegisterCallbacks", r, NULL);
        return false;
    }
    bool markers = true;
    for (int i = 0; i < CB_ARRAY_LEN(kinds); i++) {
        r = cuptiActivityEnable(kinds[i].kind);
        if (r == CUPTI_SUCCESS) {
            g_enabled[g_n_enabled++] = kinds[i].kind;
        } else if (kinds[i].required) {
            char what[64];
            snprintf(what, sizeof what, "cuptiActivityEnable(%s)", kinds[i].name);
            cb_undo_start();
            cb_refused(why, what, r, NULL);
            return false;
        } else {
            markers = false;
        }
    }
    /* Start the dropped count from zero. */
    size_t dropped = 0;
    cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
    g_push_errors = 0;
    g_active = true;
    snprintf(g_state, sizeof g_state, "%s", markers ? "active" : "active (no NVTX markers)");
    return true;
}

bool cb_cupti_active(void)
{
    return g_active;
}

void cb_cupti_sample_begin(uint64_t sample_id)
{
    if (!g_active) return;
    if (cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
                                               sample_id) != CUPTI_SUCCESS)
        g_push_errors++;
}

void cb_cupti_sample_end(void)
{
    if (!g_active) return;
    uint64_t last = 0;
    if (cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last) !=
        CUPTI_SUCCESS)
        g_push_errors++;
}

cb_status cb_cupti_collect(uint64_t first_id, int n_samples, cb_cupti_point *out, cb_msg *why)
{
    memset(out, 0, sizeof *out);
    if (!g_active) {
        cb_msg_set(why, "CUPTI is not active");
        return CB_SKIP;
    }
    /* A forced flush hands over records still in flight with zero
     * timestamps: make sure the work is done first. */
    cudaError_t ce = cudaDeviceSynchronize();
    if (ce != cudaSuccess) {
        cb_msg_set(why, "cudaDeviceSynchronize before the CUPTI flush failed: %s",
                   cudaGetErrorName(ce));
        return CB_FAIL;
    }
    CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (r != CUPTI_SUCCESS) {
        cb_msg_set(why, "cuptiActivityFlushAll failed: %s", cb_cupti_error_name(r));
        pthread_mutex_lock(&g_lock);
        cb_cupti_records_clear(g_records);
        pthread_mutex_unlock(&g_lock);
        return CB_FAIL;
    }
    size_t global_dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(NULL, 0, &global_dropped) != CUPTI_SUCCESS)
        global_dropped = 0;

    pthread_mutex_lock(&g_lock);
    long dropped = g_dropped + (long)global_dropped;
    g_dropped = 0;
    cb_status st = cb_cupti_records_join(g_records, first_id, n_samples, dropped, out, why);
    cb_cupti_records_clear(g_records);
    pthread_mutex_unlock(&g_lock);

    if (st == CB_OK && g_push_errors > 0) {
        cb_msg_set(why,
                   "%ld CUPTI external-correlation push/pop calls failed: samples were "
                   "not all attributed",
                   g_push_errors);
        st = CB_FAIL;
    }
    g_push_errors = 0;
    return st;
}

void cb_cupti_stop(void)
{
    if (!g_active) return;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    cb_undo_start();
    g_active = false;
    snprintf(g_state, sizeof g_state, "stopped");
}

void cb_cupti_set_off(const char *reason)
{
    if (g_active) return;
    snprintf(g_state, sizeof g_state, "off: %s", reason ? reason : "not requested");
}

uint32_t cb_cupti_api_version(void)
{
    uint32_t v = 0;
    if (cuptiGetVersion(&v) != CUPTI_SUCCESS) return 0;
    return v;
}

const char *cb_cupti_state(void)
{
    return g_state;
}

void cb_cupti_describe(char *buf, size_t len)
{
    uint32_t v = cb_cupti_api_version();
    if (v)
        snprintf(buf, len, "CUPTI API %u, %s", v, g_state);
    else
        snprintf(buf, len, "CUPTI API unknown, %s", g_state);
}

bool cb_cupti_library_path(char *buf, size_t len)
{
    /* A function pointer is not an object pointer in ISO C: go through a
     * union rather than a cast. */
    union {
        CUptiResult(CUPTIAPI *fn)(uint32_t *);
        void *p;
    } sym = {.fn = cuptiGetVersion};
    Dl_info info;
    if (dladdr(sym.p, &info) && info.dli_fname && info.dli_fname[0]) {
        char resolved[PATH_MAX];
        const char *path = info.dli_fname;
        if (path[0] != '/' && realpath(path, resolved)) path = resolved;
        if (path[0] == '/' && strlen(path) < len) {
            snprintf(buf, len, "%s", path);
            return true;
        }
    }
    static const char *const known[] = {
        "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so",
        "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
        "/usr/local/cuda/lib64/libcupti.so",
    };
    for (int i = 0; i < CB_ARRAY_LEN(known); i++) {
        if (access(known[i], R_OK) == 0 && strlen(known[i]) < len) {
            snprintf(buf, len, "%s", known[i]);
            return true;
        }
    }
    return false;
}
