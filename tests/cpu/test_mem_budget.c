/* test_mem_budget.c - the memory fit checks: saturating byte counts, the
 * host probe fed with fake /proc/meminfo and cgroup files (v2, v1, hybrid,
 * "max", nested limits, garbage, nothing at all), and the skip reasons. */
/* test links: cubench_toolkit */
#include "cb_test.h"
#include "cb_test_files.h"
#include "mem_budget.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define GIB ((uint64_t)1 << 30)

static char root[256];

/* Write `text` to root/rel, creating the directories on the way. */
static void put(const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) perror(path);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    CB_CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* Remove everything under root (the test's own directory) and root itself. */
static void remove_tree(const char *dir)
{
    CB_CHECK(cb_test_remove_tree(dir));
}

/* A fresh scenario: empty the fake tree. */
static void reset(void)
{
    remove_tree(root);
    CB_CHECK(mkdir(root, 0700) == 0);
}

static cb_host_memory probe(void)
{
    char meminfo[300], self[300], cg[300];
    snprintf(meminfo, sizeof meminfo, "%s/proc/meminfo", root);
    snprintf(self, sizeof self, "%s/proc/self/cgroup", root);
    snprintf(cg, sizeof cg, "%s/sys/fs/cgroup", root);
    cb_mem_sources src = {.meminfo = meminfo, .self_cgroup = self, .cgroup_root = cg};
    cb_host_memory m;
    cb_mem_probe_host(&src, &m);
    return m;
}

static const char *MEMINFO_20G = "MemTotal:       65536000 kB\n"
                                 "MemFree:         1000000 kB\n"
                                 "MemAvailable:   21076378 kB\n" /* 20.1 GiB */
                                 "Buffers:          100000 kB\n";

static void check_arithmetic(void)
{
    CB_CHECK(cb_mem_bytes((uint64_t)1 << 62, 12) == CB_MEM_OVERFLOW);
    CB_CHECK(cb_mem_bytes((uint64_t)1 << 60, 12) == ((uint64_t)12 << 60));
    CB_CHECK(cb_mem_bytes(0, CB_MEM_OVERFLOW) == 0);
    CB_CHECK(cb_mem_bytes(CB_MEM_OVERFLOW, 1) == CB_MEM_OVERFLOW);
    CB_CHECK(cb_mem_sum((uint64_t)1 << 63, (uint64_t)1 << 63) == CB_MEM_OVERFLOW);
    CB_CHECK(cb_mem_sum(CB_MEM_OVERFLOW, 0) == CB_MEM_OVERFLOW);
    CB_CHECK(cb_mem_sum(3, 4) == 7);
    char buf[32];
    cb_mem_format(96 * GIB, buf, sizeof buf);
    CB_CHECK_STR(buf, "96.0 GiB");
    cb_mem_format(512, buf, sizeof buf);
    CB_CHECK_STR(buf, "512 bytes");
    cb_mem_format((uint64_t)12 << 40, buf, sizeof buf);
    CB_CHECK_STR(buf, "12.0 TiB");
    cb_mem_format(CB_MEM_OVERFLOW, buf, sizeof buf);
    CB_CHECK_STR(buf, "more than 16 EiB");
}

static void check_probe(void)
{
    /* MemAvailable alone. */
    reset();
    put("proc/meminfo", MEMINFO_20G);
    cb_host_memory m = probe();
    CB_CHECK(m.have_meminfo && !m.have_cgroup);
    CB_CHECK_EQ_INT(m.available, (uint64_t)21076378 * 1024);
    CB_CHECK_STR(m.source, "MemAvailable");

    /* cgroup v2: 8 GiB limit, 3 GiB charged of which 1 GiB inactive cache:
     * 6 GiB of room; the parent is unlimited ("max"). */
    reset();
    put("proc/meminfo", MEMINFO_20G);
    put("proc/self/cgroup", "0::/user.slice/job\n");
    put("sys/fs/cgroup/user.slice/job/memory.max", "8589934592\n");
    put("sys/fs/cgroup/user.slice/job/memory.current", "3221225472\n");
    put("sys/fs/cgroup/user.slice/job/memory.stat", "anon 1\nactive_file 5\ninactive_file "
                                                    "1073741824\n");
    put("sys/fs/cgroup/user.slice/memory.max", "max\n");
    put("sys/fs/cgroup/user.slice/memory.current", "99999999999\n");
    m = probe();
    CB_CHECK(m.have_meminfo && m.have_cgroup);
    CB_CHECK_EQ_INT(m.available, 6 * GIB);
    CB_CHECK(strstr(m.source, "cgroup v2 /user.slice/job") != NULL);
    CB_CHECK(strstr(m.source, "memory.max - memory.current") != NULL);

    /* A parent level tighter than the process' own: 4 GiB limit, 3.5 used. */
    put("sys/fs/cgroup/user.slice/memory.max", "4294967296\n");
    put("sys/fs/cgroup/user.slice/memory.current", "3758096384\n");
    m = probe();
    CB_CHECK_EQ_INT(m.available, GIB / 2);
    CB_CHECK(strstr(m.source, "cgroup v2 /user.slice:") != NULL);

    /* Over the limit: no room at all, not a wrapped huge number. */
    put("sys/fs/cgroup/user.slice/memory.current", "5000000000\n");
    m = probe();
    CB_CHECK_EQ_INT(m.available, 0);

    /* Hybrid: v2 under unified/, v1 memory controller unlimited. */
    reset();
    put("proc/meminfo", MEMINFO_20G);
    put("proc/self/cgroup", "4:memory:/docker/abc\n0::/docker/abc\n");
    put("sys/fs/cgroup/unified/docker/abc/memory.max", "5368709120\n");
    put("sys/fs/cgroup/unified/docker/abc/memory.current", "0\n");
    put("sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n");
    put("sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes", "1000\n");
    m = probe();
    CB_CHECK_EQ_INT(m.available, 5 * GIB);

    /* cgroup v1 with a limit: 2 GiB, 1.5 GiB used, 0.5 GiB inactive cache. */
    reset();
    put("proc/meminfo", MEMINFO_20G);
    put("proc/self/cgroup", "9:cpu,cpuacct:/\n4:memory:/docker/abc\n");
    put("sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "2147483648\n");
    put("sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes", "1610612736\n");
    put("sys/fs/cgroup/memory/docker/abc/memory.stat",
        "cache 1\ninactive_file 7\ntotal_inactive_file 536870912\n");
    m = probe();
    CB_CHECK_EQ_INT(m.available, GIB);
    CB_CHECK(strstr(m.source, "cgroup v1 /docker/abc: memory.limit_in_bytes") != NULL);

    /* The cgroup leaves more than MemAvailable: MemAvailable binds. */
    put("sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "107374182400\n");
    m = probe();
    CB_CHECK_EQ_INT(m.available, (uint64_t)21076378 * 1024);
    CB_CHECK_STR(m.source, "MemAvailable");

    /* Garbage and "max" everywhere, no MemAvailable line: nothing known. */
    reset();
    put("proc/meminfo", "MemTotal: 1 kB\n");
    put("proc/self/cgroup", "garbage line\n0::/a\n");
    put("sys/fs/cgroup/a/memory.max", "max\n");
    put("sys/fs/cgroup/memory.max", "lots\n");
    m = probe();
    CB_CHECK(!m.have_meminfo && !m.have_cgroup);
    CB_CHECK(m.available == CB_MEM_OVERFLOW);
    CB_CHECK_STR(m.source, "unknown");

    /* No files at all. */
    reset();
    m = probe();
    CB_CHECK(m.available == CB_MEM_OVERFLOW);

    /* The real machine: Linux has MemAvailable. */
    cb_host_memory real;
    cb_mem_probe_host(NULL, &real);
    CB_CHECK(real.have_meminfo && real.available > 0);
}

static void check_fit(void)
{
    cb_host_memory m = {.available = (uint64_t)21076378 * 1024, .have_meminfo = true};
    snprintf(m.source, sizeof m.source, "MemAvailable");
    cb_msg why = {{0}};
    CB_CHECK(cb_mem_fit_host(96 * GIB, CB_MEM_HOST_SHARE, "host memory", &m, &why) == CB_SKIP);
    CB_CHECK_STR(why.text, "needs 96.0 GiB of host memory; 20.1 GiB available (MemAvailable)");
    /* Fits the figure but not the share a point may take. */
    CB_CHECK(cb_mem_fit_host(19 * GIB, CB_MEM_HOST_SHARE, "host memory", &m, &why) == CB_SKIP);
    CB_CHECK(strstr(why.text, "of which a point may use 90%") != NULL);
    CB_CHECK(cb_mem_fit_host(11 * GIB, CB_MEM_PINNED_SHARE, "page-locked host memory", &m, &why) ==
             CB_SKIP);
    CB_CHECK(strstr(why.text, "11.0 GiB of page-locked host memory") != NULL);
    CB_CHECK(cb_mem_fit_host(GIB, CB_MEM_HOST_SHARE, "host memory", &m, &why) == CB_OK);
    CB_CHECK(cb_mem_fit_host(CB_MEM_OVERFLOW, CB_MEM_HOST_SHARE, "host memory", &m, &why) ==
             CB_SKIP);
    CB_CHECK(strstr(why.text, "more than 16 EiB of host memory") && strstr(why.text, "overflows"));
    /* Nothing known: the allocation itself decides. */
    cb_host_memory unknown = {.available = CB_MEM_OVERFLOW};
    CB_CHECK(cb_mem_fit_host(96 * GIB, CB_MEM_HOST_SHARE, "host memory", &unknown, &why) == CB_OK);

    CB_CHECK(cb_mem_fit_device(GIB, 80 * GIB, &why) == CB_OK);
    CB_CHECK(cb_mem_fit_device(80 * GIB, 80 * GIB, &why) == CB_SKIP);
    CB_CHECK(strstr(why.text, "needs 80.0 GiB of device memory; 80.0 GiB free (cudaMemGetInfo)"));
    /* Overflowing counts are refused before any CUDA call (no GPU here). */
    CB_CHECK(cb_mem_check_device(CB_MEM_OVERFLOW, &why) == CB_SKIP);
    CB_CHECK(strstr(why.text, "overflows") != NULL);
    CB_CHECK(cb_mem_check_host(CB_MEM_OVERFLOW, CB_MEM_HOST_SHARE, "host memory", &why) == CB_SKIP);
    CB_CHECK(cb_mem_check_host(4096, CB_MEM_HOST_SHARE, "host memory", &why) == CB_OK);
}

int main(void)
{
    char tmpl[] = "/tmp/cb_mem_budget_XXXXXX";
    if (!cb_test_temp_dir(tmpl)) return 1;
    snprintf(root, sizeof root, "%s", tmpl);
    check_arithmetic();
    check_probe();
    check_fit();
    remove_tree(root);
    return cb_test_finish("test_mem_budget");
}
