/* compare_kind.c - kind names and the rules for runs that do not write
 * them (compare_kind.h). */
#include "compare_kind.h"

#include <string.h>

static const char *const kind_names[CB_CMP_KINDS] = {
    [CB_CMP_KIND_DEVICE] = "device",           [CB_CMP_KIND_HOST_COPY] = "host_copy",
    [CB_CMP_KIND_STAGED_COPY] = "staged_copy", [CB_CMP_KIND_HOST] = "host",
    [CB_CMP_KIND_PYTHON] = "python",           [CB_CMP_KIND_MULTI_GPU] = "multi_gpu",
};

const char cb_cmp_kind_list[] = "device, host_copy, staged_copy, host, python or multi_gpu";

const char *cb_cmp_kind_name(cb_cmp_kind k)
{
    return k >= 0 && k < CB_CMP_KINDS ? kind_names[k] : "?";
}

bool cb_cmp_kind_parse(const char *name, cb_cmp_kind *out)
{
    for (int k = 0; k < CB_CMP_KINDS; k++)
        if (strcmp(name, kind_names[k]) == 0) {
            *out = (cb_cmp_kind)k;
            return true;
        }
    return false;
}

/* Does the axes text hold an axis named `name` (any value)? */
static bool has_axis_named(const char *axes, const char *name)
{
    size_t len = strlen(name);
    for (const char *a = axes; *a;) {
        size_t n = strcspn(a, ";");
        if (n > len && strncmp(a, name, len) == 0 && a[len] == '=') return true;
        a += n + (a[n] == ';');
    }
    return false;
}

/* Does the axes text hold exactly `token` (name=value) as one axis? */
static bool has_axis(const char *axes, const char *token)
{
    size_t len = strlen(token);
    for (const char *a = axes; *a;) {
        size_t n = strcspn(a, ";");
        if (n == len && strncmp(a, token, len) == 0) return true;
        a += n + (a[n] == ';');
    }
    return false;
}

/* Does some axis of the text have the value h2d or d2h? */
static bool has_host_direction(const char *axes)
{
    for (const char *a = axes; *a;) {
        size_t n = strcspn(a, ";");
        const char *eq = memchr(a, '=', n);
        size_t v = eq ? n - (size_t)(eq + 1 - a) : 0;
        if (eq && v == 3 && (strncmp(eq + 1, "h2d", 3) == 0 || strncmp(eq + 1, "d2h", 3) == 0))
            return true;
        a += n + (a[n] == ';');
    }
    return false;
}

cb_cmp_kind cb_cmp_kind_infer(const cb_cmp_kind_facts *f)
{
    if (f->python_family) return CB_CMP_KIND_PYTHON;
    if (has_axis_named(f->axes, "ranks") || has_axis_named(f->axes, "peer"))
        return CB_CMP_KIND_MULTI_GPU;
    if (has_axis(f->axes, "memory=pageable")) return CB_CMP_KIND_STAGED_COPY;
    bool copy = has_axis_named(f->axes, "memory") || has_host_direction(f->axes);
    if (copy) return CB_CMP_KIND_HOST_COPY;
    bool host_timed = strcmp(f->timer, "host") == 0;
    if (f->has_device_col) {
        if (!*f->device) return CB_CMP_KIND_HOST;
        return host_timed ? CB_CMP_KIND_HOST_COPY : CB_CMP_KIND_DEVICE;
    }
    return host_timed ? CB_CMP_KIND_HOST : CB_CMP_KIND_DEVICE;
}

cb_cmp_kind cb_cmp_kind_read_declared(cb_cmp_kind declared, const char *axes)
{
    if (declared == CB_CMP_KIND_HOST_COPY && has_axis(axes, "memory=pageable"))
        return CB_CMP_KIND_STAGED_COPY;
    return declared;
}
