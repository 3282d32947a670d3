/* fleet_model.c - a fleet's life cycle and lookups (fleet_model.h). */
#include "fleet_model.h"

#include <stdlib.h>
#include <string.h>

void cb_fleet_opts_default(cb_fleet_opts *o)
{
    o->tolerance = 0.05;
    o->alpha = 0.05;
    o->min_runs = 3;
}

void cb_fleet_init(cb_fleet *f)
{
    memset(f, 0, sizeof *f);
    f->expected = -1;
}

void cb_fleet_free(cb_fleet *f)
{
    for (int i = 0; i < f->n_members; i++) {
        free(f->members[i].name);
        free(f->members[i].cells);
    }
    free(f->members);
    for (int d = 0; d < f->n_dirs; d++) {
        free(f->dirs[d].name);
        cb_cmp_run_free(&f->dirs[d].run);
    }
    free(f->dirs);
    for (int t = 0; t < f->n_tasks; t++)
        free(f->tasks[t].run_dir);
    free(f->tasks);
    free(f->gaps);
    for (int i = 0; i < f->n_figures; i++)
        free(f->figures[i].name);
    free(f->figures);
    for (int g = 0; g < f->n_groups; g++) {
        free(f->groups[g].model);
        free(f->groups[g].members);
        free(f->groups[g].refs);
    }
    free(f->groups);
    cb_fleet_init(f);
}

const cb_cmp_point *cb_fleet_point(const cb_fleet *f, const cb_fleet_member *m,
                                   const char *benchmark, const char *axes)
{
    return cb_cmp_run_find(&f->dirs[m->dir].run, benchmark, axes, m->device);
}

const char *cb_fleet_verdict_name(cb_fleet_verdict v)
{
    static const char *const names[] = {"", "ok", "slow", "fast", "missing", "unjudged"};
    return cb_enum_name(names, CB_ARRAY_LEN(names), (int)v, "?");
}
