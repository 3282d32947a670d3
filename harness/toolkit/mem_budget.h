/* mem_budget.h - does a point's memory fit, before it is allocated?
 *
 * A sweep value such as n = 2^62 must become a `skip` row with the numbers
 * ("needs 48.0 EiB of host memory; 20.1 GiB available (MemAvailable)"), not
 * a size that wraps to a small allocation and crashes, nor an allocation
 * the kernel's OOM killer answers by ending the whole run. Setups add their
 * byte counts with the saturating helpers below and ask before allocating:
 *   host:   the least of MemAvailable (/proc/meminfo) and what the process'
 *           cgroups leave (v2 memory.max - memory.current, v1
 *           memory.limit_in_bytes - memory.usage_in_bytes, at every level
 *           up to the root; inactive page cache counts as free, as the
 *           kernel reclaims it before it fails an allocation);
 *   device: cudaMemGetInfo's free bytes, less a reserve.
 * The file paths are injectable so that tests can feed fake files.
 */
#ifndef CB_MEM_BUDGET_H
#define CB_MEM_BUDGET_H

#include "cb_common.h"

/* A byte count too large for 64 bits: it never fits. */
#define CB_MEM_OVERFLOW UINT64_MAX

/* count x size and a + b, saturating at CB_MEM_OVERFLOW (which stays). */
uint64_t cb_mem_bytes(uint64_t count, uint64_t size);
uint64_t cb_mem_sum(uint64_t a, uint64_t b);

/* Share of the available host memory one point may take by default: 90%.
 * The rest keeps the harness, its page cache and other processes out of
 * reclaim storms and the OOM killer. Page-locked buffers take 50%
 * (transfers): locked pages cannot be reclaimed at all. */
#define CB_MEM_HOST_SHARE   0.9
#define CB_MEM_PINNED_SHARE 0.5
/* Device memory a point leaves free: 256 MiB for the CUDA context's own
 * growth, cuBLAS workspaces and the runner's L2 flush buffer. */
#define CB_MEM_DEVICE_RESERVE ((uint64_t)256 << 20)

/* Where the host's memory figures are read. NULL fields take the defaults:
 * /proc/meminfo, /proc/self/cgroup and /sys/fs/cgroup (the v2 hierarchy
 * there or under unified/, the v1 memory controller under memory/). */
typedef struct cb_mem_sources {
    const char *meminfo;
    const char *self_cgroup;
    const char *cgroup_root;
} cb_mem_sources;

/* What the probe found. */
typedef struct cb_host_memory {
    uint64_t available; /* bytes: the least of the figures found; CB_MEM_OVERFLOW if none */
    char source[192];   /* which figure that is: "MemAvailable", "cgroup v2 /sys/fs/...
                           memory.max - memory.current", or "unknown"          */
    bool have_meminfo;
    uint64_t meminfo_available; /* MemAvailable, bytes                    */
    bool have_cgroup;
    uint64_t cgroup_available; /* the tightest cgroup level, bytes        */
} cb_host_memory;

/* Read the host's figures (src NULL: the real files). Missing files and
 * unlimited cgroups ("max", or v1's 2^63 - 4096) are simply not limits. */
void cb_mem_probe_host(const cb_mem_sources *src, cb_host_memory *out);

/* CB_OK when `need` bytes fit `share` of `mem`; else CB_SKIP with a reason
 * that gives both numbers and the source. `what` names the memory ("host
 * memory", "page-locked host memory"). */
cb_status cb_mem_fit_host(uint64_t need, double share, const char *what, const cb_host_memory *mem,
                          cb_msg *why);
/* CB_OK when `need` bytes plus CB_MEM_DEVICE_RESERVE fit `free_bytes`. */
cb_status cb_mem_fit_device(uint64_t need, uint64_t free_bytes, cb_msg *why);

/* The same against this machine: the real host files, and cudaMemGetInfo
 * on the current device (called only when need > 0 and need itself could
 * fit; a failing call is CB_FAIL with its error). */
cb_status cb_mem_check_host(uint64_t need, double share, const char *what, cb_msg *why);
cb_status cb_mem_check_device(uint64_t need, cb_msg *why);

/* A setup's state: `size` zeroed bytes from the host. NULL, with `why`
 * set to `reason` (each family's own words: "out of host memory"), when the
 * host cannot give them; the setup then returns CB_SKIP. */
void *cb_mem_state_new(size_t size, const char *reason, cb_msg *why);

/* "20.1 GiB", "512.0 MiB", "96 bytes"; "more than 16 EiB" for an overflow. */
void cb_mem_format(uint64_t bytes, char *buf, size_t len);

#endif
