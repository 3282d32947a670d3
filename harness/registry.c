/* registry.c - the table of all benchmarks, built from bench/families.def. */
#include "registry.h"

#include <fnmatch.h>
#include <string.h>

#define CB_FAMILY(fam)                                                                             \
    extern const cb_bench cb_family_##fam[];                                                       \
    extern const int cb_family_##fam##_count;
#include "families.def"
#undef CB_FAMILY

typedef struct cb_family_entry {
    const cb_bench *benches;
    const int *count;
} cb_family_entry;

static const cb_family_entry cb_families[] = {
#define CB_FAMILY(fam) {cb_family_##fam, &cb_family_##fam##_count},
#include "families.def"
#undef CB_FAMILY
};

int cb_registry_count(void)
{
    int total = 0;
    for (int f = 0; f < CB_ARRAY_LEN(cb_families); f++)
        total += *cb_families[f].count;
    return total;
}

const cb_bench *cb_registry_get(int i)
{
    for (int f = 0; f < CB_ARRAY_LEN(cb_families); f++) {
        if (i < *cb_families[f].count) return &cb_families[f].benches[i];
        i -= *cb_families[f].count;
    }
    return NULL;
}

const cb_bench *cb_registry_find(const char *name)
{
    for (int i = 0; i < cb_registry_count(); i++)
        if (strcmp(cb_registry_get(i)->name, name) == 0) return cb_registry_get(i);
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
