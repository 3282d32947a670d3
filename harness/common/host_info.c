/* host_info.c - host facts from uname, /etc/os-release and /proc. */
#include "host_info.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Copy the value of `key` from lines "key<sep>value" in `path`. */
static void read_keyed_line(const char *path, const char *key, char sep, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0) continue;
        char *v = strchr(line + klen, sep);
        if (!v) continue;
        v++;
        while (*v == ' ' || *v == '\t' || *v == '"')
            v++;
        char *end = v + strlen(v);
        while (end > v && (end[-1] == '\n' || end[-1] == '"' || end[-1] == ' '))
            *--end = '\0';
        snprintf(out, len, "%s", v);
        break;
    }
    fclose(f);
}

void cb_host_info_read(cb_host_info *h)
{
    memset(h, 0, sizeof *h);
    if (gethostname(h->hostname, sizeof h->hostname - 1) != 0) snprintf(h->hostname, 8, "?");
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(h->kernel, sizeof h->kernel, "%s %s %s", u.sysname, u.release, u.machine);
    snprintf(h->os, sizeof h->os, "unknown");
    read_keyed_line("/etc/os-release", "PRETTY_NAME", '=', h->os, sizeof h->os);
    snprintf(h->cpu, sizeof h->cpu, "unknown");
    read_keyed_line("/proc/cpuinfo", "model name", ':', h->cpu, sizeof h->cpu);
    h->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    h->mem_bytes = (pages > 0 && page > 0) ? (long long)pages * page : 0;
}
