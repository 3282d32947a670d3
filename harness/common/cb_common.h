/* cb_common.h - status codes, messages and the one-per-API check macros.
 *
 * Every CUDA, cuBLAS and CUPTI call in cubench goes through a check that names
 * the call, the file and the line, and the library's own error name. Inside a
 * benchmark the checks turn an error into a cb_status plus a message, so the
 * runner can write a `fail` or `skip` row and go on with the sweep.
 */
#ifndef CB_COMMON_H
#define CB_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Outcome of one point, and of each benchmark hook. */
typedef enum cb_status {
    CB_OK = 0,    /* ran, verified and timed within the stopping rule     */
    CB_NOISY = 1, /* timed, but the time budget ran out before the CI held */
    CB_SKIP = 2,  /* cannot run here: a reason says why                   */
    CB_FAIL = 3,  /* ran but was wrong, or an API call failed             */
} cb_status;

const char *cb_status_name(cb_status s);

/* The name of enum value `v` in a table indexed by value, written with
 * designated indices so each value sits next to its name:
 *     static const char *const names[] = {[CB_OK] = "ok", [CB_FAIL] = "fail"};
 *     return cb_enum_name(names, CB_ARRAY_LEN(names), s, "?");
 * `fallback` for a value outside the table or one it leaves unnamed (NULL).
 * Every enum-to-name function of cubench reads its table through this one
 * bounds check. */
const char *cb_enum_name(const char *const *names, int n_names, int v, const char *fallback);

/* A short human-readable message, filled by whoever reports a problem. */
#define CB_MSG_LEN 256
typedef struct cb_msg {
    char text[CB_MSG_LEN];
} cb_msg;

/* printf into a message, control characters shown as '?' (a message is one
 * line); a NULL message is allowed and ignored. */
void cb_msg_set(cb_msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Cut a UTF-8 character that a size-limited write left unfinished at the
 * end of s (snprintf counts bytes: a note cut inside "±" would write half
 * of it, and the CSV that carries it would not be valid UTF-8). */
void cb_utf8_trim_tail(char *s);

/* Room for one more item in a growing array of `size`-byte items that holds
 * n of *cap: the array as it is while n < *cap, else the array realloc'd to
 * twice *cap (first_cap when empty) and *cap updated; NULL when out of
 * memory, the array and *cap left as they were. */
void *cb_grow_array(void *items, int n, int *cap, int first_cap, size_t size);

/* The index of the first of n sorted `size`-byte items from `base` that
 * does not sort before `key` (n when every one does): std::lower_bound,
 * with bsearch's comparison (cmp(key, item) < 0, 0, > 0 as key sorts
 * before, with, after the item). Unlike bsearch, it finds where an absent
 * key would go and the first of equal items. */
size_t cb_lower_bound(const void *key, const void *base, size_t n, size_t size,
                      int (*cmp)(const void *key, const void *item));

/* Seconds on the monotonic clock (samples, telemetry and progress share it). */
double cb_now_s(void);

/* Exit codes of the cubench binary (documented in the README). */
enum {
    CB_EXIT_OK = 0,           /* every point ran (ok, noisy or skip)             */
    CB_EXIT_FAILURES = 1,     /* at least one point failed, or compare: slower   */
    CB_EXIT_USAGE = 2,        /* bad command line, axis value, file or directory */
    CB_EXIT_NO_DEVICE = 3,    /* `cubench env`: no usable CUDA device            */
    CB_EXIT_INTERRUPTED = 130 /* stopped by SIGINT/SIGTERM; files are valid     */
};

/* Check a CUDA runtime call inside a function that returns cb_status and has a
 * `cb_msg *why` in scope: on error, describe it and return CB_FAIL. */
#define CB_CUDA(call)                                                                              \
    do {                                                                                           \
        cudaError_t cb_err_ = (call);                                                              \
        if (cb_err_ != cudaSuccess) {                                                              \
            cb_msg_set(why, "%s failed at %s:%d: %s (%s)", #call, __FILE__, __LINE__,              \
                       cudaGetErrorName(cb_err_), cudaGetErrorString(cb_err_));                    \
            return cb_err_ == cudaErrorMemoryAllocation ? CB_SKIP : CB_FAIL;                       \
        }                                                                                          \
    } while (0)

/* The check for a library whose calls return a status with a name (cuBLAS,
 * NCCL): on a status other than `ok`, describe it by name_of and return
 * CB_FAIL. `text` is the call as written, stringised by the caller so that
 * macros inside it show unexpanded. */
#define CB_CHECK_NAMED_STATUS(type, ok, name_of, call, text)                                       \
    do {                                                                                           \
        type cb_lib_rc_ = (call);                                                                  \
        if (cb_lib_rc_ != (ok)) {                                                                  \
            cb_msg_set(why, "%s failed at %s:%d: %s", text, __FILE__, __LINE__,                    \
                       name_of(cb_lib_rc_));                                                       \
            return CB_FAIL;                                                                        \
        }                                                                                          \
    } while (0)

/* The same for cuBLAS; needs cublas_api.h. */
#define CB_CUBLAS(call)                                                                            \
    CB_CHECK_NAMED_STATUS(cublasStatus_t, CUBLAS_STATUS_SUCCESS, cublasGetStatusName, call, #call)

/* The same for CUPTI; needs cupti.h. */
#define CB_CUPTI(call)                                                                             \
    do {                                                                                           \
        CUptiResult cb_cr_ = (call);                                                               \
        if (cb_cr_ != CUPTI_SUCCESS) {                                                             \
            const char *cb_cs_ = "?";                                                              \
            cuptiGetResultString(cb_cr_, &cb_cs_);                                                 \
            cb_msg_set(why, "%s failed at %s:%d: %s", #call, __FILE__, __LINE__, cb_cs_);          \
            return CB_FAIL;                                                                        \
        }                                                                                          \
    } while (0)

#define CB_ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

#endif
