/* transfers_host.c - host memory kinds, the pattern fill and check on either
 * side of the bus, and the size limits of the transfers family. */
#include "transfers.h"
#include "buffer_pool.h"
#include "host_slices.h"
#include "mem_budget.h"
#include "transfers_kernels.h"
#include "transfers_pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const mem_names[] = {"pageable", "pinned", "registered", "wc"};

bool cb_xfer_mem_parse(const char *word, cb_xfer_mem *out)
{
    for (int i = 0; i < CB_ARRAY_LEN(mem_names); i++) {
        if (strcmp(word, mem_names[i]) == 0) {
            *out = (cb_xfer_mem)i;
            return true;
        }
    }
    return false;
}

const char *cb_xfer_mem_name(cb_xfer_mem m)
{
    return (int)m >= 0 && (int)m < CB_ARRAY_LEN(mem_names) ? mem_names[m] : "?";
}

int cb_xfer_mem_cupti_kind(cb_xfer_mem m)
{
    return m == CB_XFER_PAGEABLE ? 1 : 2;
}

#define PAGE_BYTES ((size_t)4096)

static size_t round_to_page(size_t bytes)
{
    return (bytes + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
}

/* ---- buffers kept across points (harness/toolkit/buffer_pool.h) ----
 * From 16 MiB up a host buffer goes back to the pool at teardown and the
 * next point of the same kind and size takes it: page-locking 1 GiB costs
 * ~0.5 s and unlocking it ~0.2 s, every point, and every lock and unlock
 * leaves the host's free memory more scattered. Setup writes the whole
 * buffer again (pattern or poison), so nothing carries over but the pages
 * themselves, which is what a program that allocates once sees too. */
#define CB_XFER_POOL_MIN ((size_t)16 << 20)

static void release_cuda_host(void *p)
{
    (void)cudaFreeHost(p);
}

static void release_registered(void *p)
{
    (void)cudaHostUnregister(p);
    free(p);
}

static const cb_pool_class pool_classes[] = {
    [CB_XFER_PAGEABLE] = {"pageable host memory", free},
    [CB_XFER_PINNED] = {"pinned host memory", release_cuda_host},
    [CB_XFER_REGISTERED] = {"registered host memory", release_registered},
    [CB_XFER_WC] = {"write-combined pinned host memory", release_cuda_host},
};

static int current_device(void)
{
    int dev = 0;
    return cudaGetDevice(&dev) == cudaSuccess ? dev : -1;
}

/* A pooled buffer of the kind and size, its flags as cb_xfer_host_alloc
 * would have set them; false when the pool has none. */
static bool take_pooled(cb_xfer_host_buf *b)
{
    if (b->bytes < CB_XFER_POOL_MIN) return false;
    b->host = cb_buffer_pool_take(&pool_classes[b->kind], current_device(), b->bytes, 0);
    if (!b->host) return false;
    b->registered = b->kind == CB_XFER_REGISTERED;
    b->cuda_alloc = b->kind == CB_XFER_PINNED || b->kind == CB_XFER_WC;
    return true;
}

/* Give a whole buffer (made as its kind says) to the pool; false when it
 * is not one the pool keeps. */
static bool give_pooled(cb_xfer_host_buf *b)
{
    const bool whole =
        b->host &&
        (b->kind == CB_XFER_PAGEABLE || (b->kind == CB_XFER_REGISTERED && b->registered) ||
         ((b->kind == CB_XFER_PINNED || b->kind == CB_XFER_WC) && b->cuda_alloc));
    if (!whole || b->bytes < CB_XFER_POOL_MIN) return false;
    cb_buffer_pool_give(&pool_classes[b->kind], current_device(), b->bytes, 0, b->host);
    return true;
}

static cb_status host_alloc_new(cb_xfer_host_buf *b, cb_xfer_mem kind, size_t bytes, cb_msg *why)
{
    switch (kind) {
    case CB_XFER_PAGEABLE:
    case CB_XFER_REGISTERED:
        /* Page-aligned so the 16-byte vector kernels and cudaHostRegister
         * see whole pages; still ordinary malloc-family memory. */
        if (posix_memalign(&b->host, PAGE_BYTES, round_to_page(bytes)) != 0) {
            b->host = NULL;
            cb_msg_set(why, "cannot allocate %zu bytes of pageable host memory", bytes);
            return CB_SKIP;
        }
        if (kind == CB_XFER_REGISTERED) {
            CB_CUDA(cudaHostRegister(b->host, round_to_page(bytes), cudaHostRegisterMapped));
            b->registered = true;
        }
        break;
    case CB_XFER_PINNED:
    case CB_XFER_WC: {
        /* Through a local so that a failed call leaves b->host NULL. */
        void *p = NULL;
        if (kind == CB_XFER_PINNED)
            CB_CUDA(cudaMallocHost(&p, bytes));
        else
            CB_CUDA(cudaHostAlloc(&p, bytes, cudaHostAllocWriteCombined | cudaHostAllocMapped));
        b->host = p;
        b->cuda_alloc = true;
        break;
    }
    }
    return CB_OK;
}

cb_status cb_xfer_host_alloc(cb_xfer_host_buf *b, cb_xfer_mem kind, size_t bytes, cb_msg *why)
{
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->bytes = bytes;
    if (!take_pooled(b)) {
        cb_status s = host_alloc_new(b, kind, bytes, why);
        if (s != CB_OK) return s;
    }
    if (kind != CB_XFER_PAGEABLE) CB_CUDA(cudaHostGetDevicePointer(&b->dev, b->host, 0));
    return CB_OK;
}

void cb_xfer_host_free(cb_xfer_host_buf *b)
{
    /* Teardown cannot report: errors here only follow an earlier failure
     * that the point's row already carries. */
    if (!give_pooled(b)) {
        if (b->registered) (void)cudaHostUnregister(b->host);
        if (b->cuda_alloc)
            (void)cudaFreeHost(b->host);
        else
            free(b->host);
    }
    b->host = b->dev = NULL;
    b->registered = b->cuda_alloc = false;
}

/* ---- the pattern on the CPU: large buffers on every core ----
 * Filling or checking a GiB of pageable memory on one thread takes ~0.3 s
 * per pass; the pattern is counter-based, so slices are independent. */
#define CB_XFER_SLICE_MIN   ((size_t)8 << 20)
#define CB_XFER_MAX_THREADS 16

typedef struct pattern_job {
    uint8_t *buf;
    uint64_t seed, flip;
    bool count;
    uint64_t bad[CB_XFER_MAX_THREADS]; /* per slice, when counting */
} pattern_job;

static void pattern_slice(void *ctx, int slice, size_t word0, size_t word1)
{
    pattern_job *job = ctx;
    /* Counted here and stored once: the slices' counters share cache lines. */
    uint64_t bad = 0;
    for (size_t i = word0; i < word1; i++) {
        uint64_t w;
        if (job->count) {
            memcpy(&w, job->buf + 8 * i, 8);
            bad += cb_xfer_bytes_differ(w, cb_xfer_word(job->seed, i));
        } else {
            w = cb_xfer_word(job->seed, i) ^ job->flip;
            memcpy(job->buf + 8 * i, &w, 8); /* little-endian, like the GPU's stores */
        }
    }
    job->bad[slice] = bad;
}

/* Fill (count false) or count over the whole 8-byte words of the buffer. */
static uint64_t pattern_words(uint8_t *buf, size_t words, uint64_t seed, uint64_t flip, bool count)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = words * 8 / CB_XFER_SLICE_MIN;
    if (threads > (size_t)(cores > 0 ? cores : 1)) threads = (size_t)(cores > 0 ? cores : 1);
    if (threads > CB_XFER_MAX_THREADS) threads = CB_XFER_MAX_THREADS;
    pattern_job job = {.buf = buf, .seed = seed, .flip = flip, .count = count};
    (void)cb_run_slices(words, (int)threads, pattern_slice, &job);
    uint64_t bad = 0;
    for (int t = 0; t < CB_XFER_MAX_THREADS; t++)
        bad += job.bad[t];
    return bad;
}

void cb_xfer_pattern_fill_cpu(void *buf, size_t bytes, uint64_t seed, bool complement)
{
    uint8_t *p = buf;
    uint64_t flip = complement ? ~0ull : 0ull;
    size_t words = bytes / 8;
    pattern_words(p, words, seed, flip, false);
    for (size_t b = words * 8; b < bytes; b++)
        p[b] = (uint8_t)(cb_xfer_byte(seed, b) ^ flip);
}

uint64_t cb_xfer_pattern_count_cpu(const void *buf, size_t bytes, uint64_t seed)
{
    const uint8_t *p = buf;
    size_t words = bytes / 8;
    /* Counting only reads: the job's buffer is not written. */
    uint64_t bad = pattern_words((uint8_t *)(uintptr_t)p, words, seed, 0, true);
    for (size_t b = words * 8; b < bytes; b++)
        bad += p[b] != cb_xfer_byte(seed, b);
    return bad;
}

cb_status cb_xfer_dev_fill(void *dev, size_t bytes, uint64_t seed, bool complement, cudaStream_t s,
                           cb_msg *why)
{
    CB_CUDA(cb_xfer_launch_fill(dev, bytes, seed, complement, s));
    CB_CUDA(cudaStreamSynchronize(s));
    return CB_OK;
}

/* Read the device counter the check kernels added to. */
static cb_status read_counter(unsigned long long *counter, cudaStream_t s, uint64_t *out,
                              cb_msg *why)
{
    unsigned long long host = 0;
    CB_CUDA(cudaMemcpyAsync(&host, counter, sizeof host, cudaMemcpyDeviceToHost, s));
    CB_CUDA(cudaStreamSynchronize(s));
    *out = host;
    return CB_OK;
}

cb_status cb_xfer_dev_count(const void *dev, size_t bytes, uint64_t seed,
                            unsigned long long *counter, cudaStream_t s, uint64_t *mismatches,
                            cb_msg *why)
{
    CB_CUDA(cudaMemsetAsync(counter, 0, sizeof *counter, s));
    CB_CUDA(cb_xfer_launch_count(dev, bytes, seed, counter, s));
    return read_counter(counter, s, mismatches, why);
}

cb_status cb_xfer_dev_compare(const void *a, const void *b, size_t bytes,
                              unsigned long long *counter, cudaStream_t s, uint64_t *mismatches,
                              cb_msg *why)
{
    CB_CUDA(cudaMemsetAsync(counter, 0, sizeof *counter, s));
    CB_CUDA(cb_xfer_launch_compare(a, b, bytes, counter, s));
    return read_counter(counter, s, mismatches, why);
}

cb_status cb_xfer_host_fill(const cb_xfer_host_buf *b, uint64_t seed, bool complement,
                            cudaStream_t s, cb_msg *why)
{
    if (b->dev) return cb_xfer_dev_fill(b->dev, b->bytes, seed, complement, s, why);
    cb_xfer_pattern_fill_cpu(b->host, b->bytes, seed, complement);
    return CB_OK;
}

cb_status cb_xfer_host_count(const cb_xfer_host_buf *b, uint64_t seed, unsigned long long *counter,
                             cudaStream_t s, uint64_t *mismatches, cb_msg *why)
{
    if (b->dev) return cb_xfer_dev_count(b->dev, b->bytes, seed, counter, s, mismatches, why);
    *mismatches = cb_xfer_pattern_count_cpu(b->host, b->bytes, seed);
    return CB_OK;
}

uint64_t cb_xfer_host_budget_bytes(void)
{
    cb_host_memory mem;
    cb_mem_probe_host(NULL, &mem);
    return (uint64_t)(CB_MEM_PINNED_SHARE * (double)mem.available);
}

cb_status cb_xfer_check_fit(uint64_t host_bytes, uint64_t dev_bytes, cb_msg *why)
{
    /* Half the available host memory: page-locking or filling the rest
     * could push the host into swap or the OOM killer, which costs far
     * more than a skipped point. Idle pooled buffers count as used; when
     * the point does not fit beside them, they go first. */
    cb_status s = CB_OK;
    for (int attempt = 0; attempt < 2; attempt++) {
        s = host_bytes ? cb_mem_check_host(host_bytes, CB_MEM_PINNED_SHARE, "host memory", why)
                       : CB_OK;
        int idle = 0;
        uint64_t idle_bytes = 0;
        cb_buffer_pool_idle(&idle, &idle_bytes);
        if (s == CB_OK || idle == 0) break;
        cb_buffer_pool_drain();
    }
    if (s == CB_OK) s = cb_mem_check_device(dev_bytes, why);
    return s;
}
