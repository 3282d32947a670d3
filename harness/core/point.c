/* point.c - access to a point's axis values, and its identity string. */
#include "point.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find_axis(const cb_point *p, const char *name)
{
    for (int i = 0; i < p->n_axes; i++)
        if (strcmp(p->defs[i].name, name) == 0) return i;
    /* A benchmark asking for an axis it did not declare is a bug in its
     * table, not bad input: stop loudly rather than measure the wrong thing. */
    fprintf(stderr, "cubench: internal error: axis '%s' is not declared by this benchmark\n", name);
    abort();
}

bool cb_point_has(const cb_point *p, const char *name)
{
    for (int i = 0; i < p->n_axes; i++)
        if (strcmp(p->defs[i].name, name) == 0) return true;
    return false;
}

int64_t cb_point_int(const cb_point *p, const char *name)
{
    return p->values[find_axis(p, name)].i;
}

double cb_point_float(const cb_point *p, const char *name)
{
    return p->values[find_axis(p, name)].f;
}

const char *cb_point_str(const cb_point *p, const char *name)
{
    return p->values[find_axis(p, name)].text;
}

bool cb_point_is(const cb_point *p, const char *name, const char *word)
{
    return strcmp(cb_point_str(p, name), word) == 0;
}

void cb_point_format(const cb_point *p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < p->n_axes && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s=%s", i ? ";" : "", p->defs[i].name,
                         p->values[i].text);
        if (w < 0) break;
        used += (size_t)w;
    }
}
