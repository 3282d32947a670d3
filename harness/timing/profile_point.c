/* profile_point.c - ncu/nsys command lines for one point, profiler ranges. */
#include "profile_point.h"

#include <ctype.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <string.h>

/* A growing command line; like snprintf, `need` keeps counting past `len`. */
typedef struct cb_cmd {
    char *buf;
    size_t len, need;
} cb_cmd;

static void cb_cmd_raw(cb_cmd *c, const char *s, size_t n)
{
    if (c->len && c->need < c->len - 1) {
        size_t room = c->len - 1 - c->need;
        memcpy(c->buf + c->need, s, n < room ? n : room);
        c->buf[c->need + (n < room ? n : room)] = '\0';
    }
    c->need += n;
}

/* Characters sh leaves alone outside quotes. '^' is not one of them (old
 * Bourne shells read it as a pipe, zsh as a glob): 2^24 gets quoted. */
static bool cb_shell_safe(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_@%+=:,./-", *s)) return false;
    return true;
}

/* Append one argument, separated by a space and quoted when needed. */
static void cb_cmd_arg(cb_cmd *c, const char *arg)
{
    if (c->need) cb_cmd_raw(c, " ", 1);
    if (cb_shell_safe(arg)) {
        cb_cmd_raw(c, arg, strlen(arg));
        return;
    }
    cb_cmd_raw(c, "'", 1);
    for (const char *p = arg; *p; p++) {
        if (*p == '\'')
            cb_cmd_raw(c, "'\\''", 4);
        else
            cb_cmd_raw(c, p, 1);
    }
    cb_cmd_raw(c, "'", 1);
}

/* Append `s` to out[used..] with every character that is not a letter, a
 * digit or '-' made '_', never two '_' in a row; the new length. */
static size_t append_file_safe(char *out, size_t len, size_t used, const char *s)
{
    for (const char *p = s; *p && used + 1 < len; p++) {
        char ch = isalnum((unsigned char)*p) || *p == '-' ? *p : '_';
        if (ch == '_' && used && out[used - 1] == '_') continue;
        out[used++] = ch;
    }
    return used;
}

/* "cubench_vecadd_grid_stride_n_1024_block_256_grid_auto": a report name
 * that says which point it holds, safe as a file name. */
static void cb_report_name(const cb_profile_target *t, char *out, size_t len)
{
    size_t used = 0;
    const char *parts[] = {"cubench", t->bench ? t->bench : "", t->axes ? t->axes : ""};
    for (int i = 0; i < CB_ARRAY_LEN(parts); i++) {
        used = append_file_safe(out, len, used, parts[i]);
        bool more = i + 1 < CB_ARRAY_LEN(parts) && parts[i + 1][0];
        if (more && used && used + 1 < len && out[used - 1] != '_') out[used++] = '_';
    }
    while (used && out[used - 1] == '_')
        used--;
    out[used] = '\0';
}

static void cb_cmd_args(cb_cmd *c, const char *const *args, int n)
{
    for (int i = 0; i < n; i++)
        cb_cmd_arg(c, args[i]);
}

/* The ncu part of the command, up to the program it runs. */
static void ncu_args(cb_cmd *c, const cb_profile_target *t, const char *name)
{
    /* --clock-control none: keep the clocks cubench measured under (ncu
     * locks them to base by default). --profile-from-start off: only
     * kernels between cudaProfilerStart and Stop, i.e. the point. */
    const char *ncu[] = {"ncu", "--clock-control", "none", "--profile-from-start",
                         "off", "--set",           "full"};
    cb_cmd_args(c, ncu, CB_ARRAY_LEN(ncu));
    /* ncu flushes caches before each replayed kernel unless told not to;
     * a hot point was measured with warm caches. */
    if (t->hot) {
        cb_cmd_arg(c, "--cache-control");
        cb_cmd_arg(c, "none");
    }
    cb_cmd_arg(c, "--export");
    cb_cmd_arg(c, name);
    cb_cmd_arg(c, "--force-overwrite");
}

/* The nsys part of the command, up to the program it runs. */
static void nsys_args(cb_cmd *c, const char *name)
{
    const char *nsys[] = {"nsys",
                          "profile",
                          "--trace",
                          "cuda,nvtx",
                          "--capture-range",
                          "cudaProfilerApi",
                          "--capture-range-end",
                          "stop",
                          "--output"};
    cb_cmd_args(c, nsys, CB_ARRAY_LEN(nsys));
    cb_cmd_arg(c, name);
    cb_cmd_arg(c, "--force-overwrite");
    cb_cmd_arg(c, "true");
}

/* One --axis per axis of "a=1;b=2", with the canonical value: exactly this
 * point. */
static void axis_args(cb_cmd *c, const char *axes)
{
    for (const char *p = axes; p && *p;) {
        const char *end = strchr(p, ';');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char axis[128];
        if (n >= sizeof axis) n = sizeof axis - 1;
        memcpy(axis, p, n);
        axis[n] = '\0';
        if (n) {
            cb_cmd_arg(c, "--axis");
            cb_cmd_arg(c, axis);
        }
        p = end ? end + 1 : p + n;
    }
}

size_t cb_profile_command(char *buf, size_t len, cb_profile_tool tool, const cb_profile_target *t)
{
    cb_cmd c = {.buf = buf, .len = len};
    if (buf && len) buf[0] = '\0';
    char name[120];
    cb_report_name(t, name, sizeof name);
    if (tool == CB_PROFILE_NCU)
        ncu_args(&c, t, name);
    else
        nsys_args(&c, name);
    cb_cmd_arg(&c, t->program && t->program[0] ? t->program : "cubench");
    cb_cmd_arg(&c, "run");
    cb_cmd_arg(&c, t->bench ? t->bench : "");
    axis_args(&c, t->axes);
    cb_cmd_arg(&c, CB_PROFILE_FLAG);
    cb_cmd_arg(&c, CB_NO_CUPTI_FLAG);
    for (int i = 0; i < t->n_extra; i++)
        if (t->extra[i]) cb_cmd_arg(&c, t->extra[i]);
    return c.need;
}

void cb_profile_print_commands(FILE *out, const cb_profile_target *t)
{
    char line[2048];
    fprintf(out, "# Nsight Compute: counters of every kernel of the point's profiled run\n");
    cb_profile_command(line, sizeof line, CB_PROFILE_NCU, t);
    fprintf(out, "%s\n", line);
    fprintf(out, "# Nsight Systems: timeline of the same run, with the cubench NVTX ranges\n");
    cb_profile_command(line, sizeof line, CB_PROFILE_NSYS, t);
    fprintf(out, "%s\n", line);
}

cb_status cb_profile_start(cb_msg *why)
{
    CB_CUDA(cudaProfilerStart());
    return CB_OK;
}

cb_status cb_profile_stop(cb_msg *why)
{
    /* Everything enqueued inside the range must have run before it closes,
     * or nsys cuts the last kernels off. */
    CB_CUDA(cudaDeviceSynchronize());
    CB_CUDA(cudaProfilerStop());
    return CB_OK;
}
