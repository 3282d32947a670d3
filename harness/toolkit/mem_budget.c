/* mem_budget.c - saturating byte counts, the host memory probe (meminfo and
 * cgroups), and the fit checks setups make before they allocate. */
#include "mem_budget.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t cb_mem_bytes(uint64_t count, uint64_t size)
{
    if (count != 0 && size > CB_MEM_OVERFLOW / count) return CB_MEM_OVERFLOW;
    return count * size;
}

uint64_t cb_mem_sum(uint64_t a, uint64_t b)
{
    return a > CB_MEM_OVERFLOW - b ? CB_MEM_OVERFLOW : a + b;
}

/* cgroup v1 writes "no limit" as the largest page-aligned counter,
 * 2^63 - 4096; anything from 2^62 up is treated as no limit. */
#define NO_LIMIT_FROM ((uint64_t)1 << 62)

/* Longest path the probe builds: the mount root plus a cgroup path. */
#define PATH_CHARS 4096

/* The first value of a one-line file: 1 for a number, 2 for "max", 0 when
 * the file is missing or holds neither. */
static int read_limit_file(const char *path, uint64_t *out)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char word[64] = "";
    int got = fscanf(f, "%63s", word);
    fclose(f);
    if (got != 1) return 0;
    if (strcmp(word, "max") == 0) return 2;
    char *end;
    unsigned long long v = strtoull(word, &end, 10);
    if (end == word || *end) return 0;
    *out = (uint64_t)v;
    return 1;
}

/* The number after `key` on a "key VALUE" or "key: VALUE" line of a
 * stat-style file (memory.stat, /proc/meminfo); false when there is none. */
static bool read_keyed(const char *path, const char *key, uint64_t *out)
{
    FILE *f = fopen(path, "r");
    if (!f) return false;
    char line[256];
    size_t kl = strlen(key);
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) != 0 || (line[kl] != ' ' && line[kl] != ':')) continue;
        char *end;
        unsigned long long x = strtoull(line + kl + 1, &end, 10);
        if (end != line + kl + 1) {
            *out = (uint64_t)x;
            found = true;
        }
    }
    fclose(f);
    return found;
}

/* Which files hold a cgroup level's limit, usage and reclaimable cache. */
typedef struct cgroup_files {
    const char *version; /* "v2" or "v1" */
    const char *limit, *usage, *stat, *inactive_key;
} cgroup_files;

static const cgroup_files cgroup_v2 = {"v2", "memory.max", "memory.current", "memory.stat",
                                       "inactive_file"};
static const cgroup_files cgroup_v1 = {"v1", "memory.limit_in_bytes", "memory.usage_in_bytes",
                                       "memory.stat", "total_inactive_file"};

/* One level of a cgroup (`rel` under `base`; `level` names it): when it
 * sets a limit, its room (limit - (usage - reclaimable cache)) is kept
 * when it is the least seen so far. */
static void check_cgroup_level(const char *base, const char *rel, const char *level,
                               const cgroup_files *files, cb_host_memory *out)
{
    char path[PATH_CHARS + 64];
    uint64_t limit = 0, usage = 0;
    snprintf(path, sizeof path, "%s%s/%s", base, rel, files->limit);
    if (read_limit_file(path, &limit) != 1 || limit >= NO_LIMIT_FROM) return;
    snprintf(path, sizeof path, "%s%s/%s", base, rel, files->usage);
    if (read_limit_file(path, &usage) != 1) usage = 0;
    snprintf(path, sizeof path, "%s%s/%s", base, rel, files->stat);
    uint64_t inactive = 0;
    if (!read_keyed(path, files->inactive_key, &inactive)) inactive = 0;
    uint64_t used = usage > inactive ? usage - inactive : 0;
    uint64_t room = limit > used ? limit - used : 0;
    if (!out->have_cgroup || room < out->cgroup_available) {
        out->have_cgroup = true;
        out->cgroup_available = room;
        snprintf(out->source, sizeof out->source, "cgroup %s %.64s: %s - %s", files->version, level,
                 files->limit, files->usage);
    }
}

/* Cut `level` to its parent in place ("/a/b" -> "/a" -> "/"); false at the
 * root. `len` is its length, without trailing slashes. */
static bool parent_level(char *level, size_t len)
{
    if (strcmp(level, "/") == 0 || len == 0) return false;
    char *slash = strrchr(level, '/');
    if (!slash) return false;
    if (slash == level)
        level[1] = '\0';
    else
        *slash = '\0';
    return true;
}

/* Look at every level of `cg_path` (the process' cgroup, then each parent
 * up to the root) under `base`, and keep the least room left. */
static void walk_cgroup(const char *base, const char *cg_path, const cgroup_files *files,
                        cb_host_memory *out)
{
    char level[PATH_CHARS];
    snprintf(level, sizeof level, "%s", cg_path);
    for (;;) {
        size_t ll = strlen(level);
        while (ll > 1 && level[ll - 1] == '/')
            level[--ll] = '\0';
        const char *rel = strcmp(level, "/") == 0 ? "" : level;
        check_cgroup_level(base, rel, level, files, out);
        if (!parent_level(level, ll)) break;
    }
}

/* Is `name` one of the comma-separated controllers of a v1 line? */
static bool has_controller(const char *list, size_t len, const char *name)
{
    size_t nl = strlen(name);
    const char *p = list, *end = list + len;
    while (p < end) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        size_t wl = c ? (size_t)(c - p) : (size_t)(end - p);
        if (wl == nl && strncmp(p, name, nl) == 0) return true;
        if (!c) break;
        p = c + 1;
    }
    return false;
}

static void probe_cgroups(const char *self_cgroup, const char *root, cb_host_memory *out)
{
    FILE *f = fopen(self_cgroup, "r");
    if (!f) return;
    char line[PATH_CHARS];
    char base[PATH_CHARS];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        /* hierarchy-ID:controllers:path */
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2 || c2[1] != '/') continue;
        const char *path = c2 + 1;
        size_t ctl_len = (size_t)(c2 - c1 - 1);
        if (strncmp(line, "0:", 2) == 0 && ctl_len == 0) {
            /* v2: the unified hierarchy at the root, or under unified/ on
             * a hybrid system (where it has no memory controller). */
            walk_cgroup(root, path, &cgroup_v2, out);
            snprintf(base, sizeof base, "%s/unified", root);
            walk_cgroup(base, path, &cgroup_v2, out);
        } else if (has_controller(c1 + 1, ctl_len, "memory")) {
            snprintf(base, sizeof base, "%s/memory", root);
            walk_cgroup(base, path, &cgroup_v1, out);
        }
    }
    fclose(f);
}

void cb_mem_probe_host(const cb_mem_sources *src, cb_host_memory *out)
{
    memset(out, 0, sizeof *out);
    const char *meminfo = src && src->meminfo ? src->meminfo : "/proc/meminfo";
    const char *self_cg = src && src->self_cgroup ? src->self_cgroup : "/proc/self/cgroup";
    const char *root = src && src->cgroup_root ? src->cgroup_root : "/sys/fs/cgroup";
    /* "MemAvailable:   23856084 kB"; kernels before 3.14 lack the line. */
    uint64_t kib;
    if (read_keyed(meminfo, "MemAvailable", &kib)) {
        out->have_meminfo = true;
        out->meminfo_available = cb_mem_bytes(kib, 1024);
    }
    probe_cgroups(self_cg, root, out);
    out->available = CB_MEM_OVERFLOW;
    if (out->have_cgroup) out->available = out->cgroup_available;
    if (out->have_meminfo && out->meminfo_available <= out->available) {
        out->available = out->meminfo_available;
        snprintf(out->source, sizeof out->source, "MemAvailable");
    }
    if (!out->have_meminfo && !out->have_cgroup)
        snprintf(out->source, sizeof out->source, "unknown");
}

void cb_mem_format(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes == CB_MEM_OVERFLOW) {
        snprintf(buf, len, "more than 16 EiB");
        return;
    }
    if (bytes < 1024) {
        snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
        return;
    }
    double v = (double)bytes / 1024.0;
    int u = 0;
    while (v >= 1024.0 && u < CB_ARRAY_LEN(units) - 1) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, len, "%.1f %s", v, units[u]);
}

cb_status cb_mem_fit_host(uint64_t need, double share, const char *what, const cb_host_memory *mem,
                          cb_msg *why)
{
    char need_s[32], avail_s[32];
    cb_mem_format(need, need_s, sizeof need_s);
    if (need == CB_MEM_OVERFLOW) {
        cb_msg_set(why, "needs %s of %s (the byte count overflows 64 bits)", need_s, what);
        return CB_SKIP;
    }
    if (mem->available == CB_MEM_OVERFLOW) return CB_OK; /* nothing known: let malloc say */
    if (share <= 0 || share > 1) share = CB_MEM_HOST_SHARE;
    cb_mem_format(mem->available, avail_s, sizeof avail_s);
    if (need > mem->available) {
        cb_msg_set(why, "needs %s of %s; %s available (%s)", need_s, what, avail_s, mem->source);
        return CB_SKIP;
    }
    if ((double)need > share * (double)mem->available) {
        cb_msg_set(why, "needs %s of %s; %s available (%s), of which a point may use %.0f%%",
                   need_s, what, avail_s, mem->source, 100.0 * share);
        return CB_SKIP;
    }
    return CB_OK;
}

cb_status cb_mem_fit_device(uint64_t need, uint64_t free_bytes, cb_msg *why)
{
    char need_s[32], free_s[32], reserve_s[32];
    cb_mem_format(need, need_s, sizeof need_s);
    if (need == CB_MEM_OVERFLOW) {
        cb_msg_set(why, "needs %s of device memory (the byte count overflows 64 bits)", need_s);
        return CB_SKIP;
    }
    if (cb_mem_sum(need, CB_MEM_DEVICE_RESERVE) <= free_bytes) return CB_OK;
    cb_mem_format(free_bytes, free_s, sizeof free_s);
    cb_mem_format(CB_MEM_DEVICE_RESERVE, reserve_s, sizeof reserve_s);
    cb_msg_set(why, "needs %s of device memory; %s free (cudaMemGetInfo), %s of it kept in reserve",
               need_s, free_s, reserve_s);
    return CB_SKIP;
}

cb_status cb_mem_check_host(uint64_t need, double share, const char *what, cb_msg *why)
{
    cb_host_memory mem;
    if (need == CB_MEM_OVERFLOW) {
        mem.available = CB_MEM_OVERFLOW;
        return cb_mem_fit_host(need, share, what, &mem, why);
    }
    cb_mem_probe_host(NULL, &mem);
    return cb_mem_fit_host(need, share, what, &mem, why);
}

cb_status cb_mem_check_device(uint64_t need, cb_msg *why)
{
    if (need == 0) return CB_OK;
    if (need == CB_MEM_OVERFLOW) return cb_mem_fit_device(need, 0, why);
    size_t free_b = 0, total_b = 0;
    CB_CUDA(cudaMemGetInfo(&free_b, &total_b));
    return cb_mem_fit_device(need, (uint64_t)free_b, why);
}

void *cb_mem_state_new(size_t size, const char *reason, cb_msg *why)
{
    void *state = calloc(1, size);
    if (!state) cb_msg_set(why, "%s", reason);
    return state;
}
