/* registry.c - the families registered by the front end, in order. */
#include "registry.h"

#include <fnmatch.h>
#include <string.h>

/* A handful of families: a fixed table keeps the registry free of
 * allocation and of anything to free at exit. */
enum { CB_MAX_FAMILIES = 64 };
static const cb_family *cb_families[CB_MAX_FAMILIES];
static int cb_n_families;

cb_status cb_registry_add_family(const cb_family *family, cb_msg *why)
{
    if (!family || !family->name || !family->name[0] || (family->count > 0 && !family->benches)) {
        cb_msg_set(why, "a family needs a name and a table of benchmarks");
        return CB_FAIL;
    }
    if (cb_n_families == CB_MAX_FAMILIES) {
        cb_msg_set(why, "too many families (at most %d)", CB_MAX_FAMILIES);
        return CB_FAIL;
    }
    size_t len = strlen(family->name);
    for (int i = 0; i < family->count; i++) {
        const cb_bench *b = &family->benches[i];
        if (!b->name || strncmp(b->name, family->name, len) != 0 || b->name[len] != '/' ||
            !b->name[len + 1]) {
            cb_msg_set(why,
                       "benchmark '%s' does not belong to family '%s' (names are family/variant)",
                       b->name ? b->name : "(null)", family->name);
            return CB_FAIL;
        }
        if (!b->setup || !b->run || !b->verify || !b->teardown) {
            cb_msg_set(why, "benchmark '%s' lacks a setup, run, verify or teardown hook", b->name);
            return CB_FAIL;
        }
        if (cb_registry_find(b->name)) {
            cb_msg_set(why, "benchmark '%s' is registered twice", b->name);
            return CB_FAIL;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(family->benches[j].name, b->name) == 0) {
                cb_msg_set(why, "benchmark '%s' appears twice in its family", b->name);
                return CB_FAIL;
            }
    }
    for (int f = 0; f < cb_n_families; f++)
        if (strcmp(cb_families[f]->name, family->name) == 0) {
            cb_msg_set(why, "family '%s' is registered twice", family->name);
            return CB_FAIL;
        }
    cb_families[cb_n_families++] = family;
    return CB_OK;
}

void cb_registry_clear(void)
{
    cb_n_families = 0;
}

int cb_registry_family_count(void)
{
    return cb_n_families;
}

const cb_family *cb_registry_family(int i)
{
    return i >= 0 && i < cb_n_families ? cb_families[i] : NULL;
}

int cb_registry_count(void)
{
    int total = 0;
    for (int f = 0; f < cb_n_families; f++)
        total += cb_families[f]->count;
    return total;
}

const cb_bench *cb_registry_get(int i)
{
    if (i < 0) return NULL;
    for (int f = 0; f < cb_n_families; f++) {
        if (i < cb_families[f]->count) return &cb_families[f]->benches[i];
        i -= cb_families[f]->count;
    }
    return NULL;
}

const cb_bench *cb_registry_find(const char *name)
{
    for (int f = 0; f < cb_n_families; f++)
        for (int i = 0; i < cb_families[f]->count; i++)
            if (strcmp(cb_families[f]->benches[i].name, name) == 0)
                return &cb_families[f]->benches[i];
    return NULL;
}

bool cb_registry_matches(const char *pattern, const char *name)
{
    if (fnmatch(pattern, name, 0) == 0) return true;
    /* A bare family name selects the whole family. */
    if (strpbrk(pattern, "/*?[") == NULL) {
        size_t len = strlen(pattern);
        return strncmp(name, pattern, len) == 0 && name[len] == '/';
    }
    return false;
}

cb_status cb_registry_write_outputs(const char *dir, const cb_result *rows, int n, cb_msg *why)
{
    for (int f = 0; f < cb_n_families; f++) {
        if (!cb_families[f]->write_outputs) continue;
        cb_status st = cb_families[f]->write_outputs(dir, rows, n, why);
        if (st != CB_OK) return st;
    }
    return CB_OK;
}
