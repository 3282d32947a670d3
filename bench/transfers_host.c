/* transfers_host.c - host memory kinds, the pattern fill and check on either
 * side of the bus, and the size limits of the transfers family. */
#include "transfers.h"
#include "mem_budget.h"
#include "transfers_kernels.h"
#include "transfers_pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

cb_status cb_xfer_host_alloc(cb_xfer_host_buf *b, cb_xfer_mem kind, size_t bytes, cb_msg *why)
{
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->bytes = bytes;
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
    if (kind != CB_XFER_PAGEABLE) CB_CUDA(cudaHostGetDevicePointer(&b->dev, b->host, 0));
    return CB_OK;
}

void cb_xfer_host_free(cb_xfer_host_buf *b)
{
    /* Teardown cannot report: errors here only follow an earlier failure
     * that the point's row already carries. */
    if (b->registered) (void)cudaHostUnregister(b->host);
    if (b->cuda_alloc)
        (void)cudaFreeHost(b->host);
    else
        free(b->host);
    b->host = b->dev = NULL;
    b->registered = b->cuda_alloc = false;
}

void cb_xfer_pattern_fill_cpu(void *buf, size_t bytes, uint64_t seed, bool complement)
{
    uint8_t *p = buf;
    uint64_t flip = complement ? ~0ull : 0ull;
    size_t words = bytes / 8;
    for (size_t i = 0; i < words; i++) {
        uint64_t w = cb_xfer_word(seed, i) ^ flip;
        memcpy(p + 8 * i, &w, 8); /* little-endian, like the GPU's stores */
    }
    for (size_t b = words * 8; b < bytes; b++)
        p[b] = (uint8_t)(cb_xfer_byte(seed, b) ^ flip);
}

uint64_t cb_xfer_pattern_count_cpu(const void *buf, size_t bytes, uint64_t seed)
{
    const uint8_t *p = buf;
    uint64_t bad = 0;
    size_t words = bytes / 8;
    for (size_t i = 0; i < words; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        bad += cb_xfer_bytes_differ(w, cb_xfer_word(seed, i));
    }
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
     * more than a skipped point. */
    cb_status s =
        host_bytes ? cb_mem_check_host(host_bytes, CB_MEM_PINNED_SHARE, "host memory", why) : CB_OK;
    if (s == CB_OK) s = cb_mem_check_device(dev_bytes, why);
    return s;
}
