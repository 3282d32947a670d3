/* families.c - registers the families listed in families.def. */
#include "families.h"

#define CB_FAMILY(fam) extern const cb_family cb_family_##fam;
#include "families.def"
#undef CB_FAMILY

static const cb_family *const cb_builtin_families[] = {
#define CB_FAMILY(fam) &cb_family_##fam,
#include "families.def"
#undef CB_FAMILY
};

cb_status cb_families_register_builtin(cb_msg *why)
{
    for (int i = 0; i < CB_ARRAY_LEN(cb_builtin_families); i++) {
        const cb_family *f = cb_builtin_families[i];
        if (cb_registry_find(f->benches[0].name)) continue; /* already registered */
        cb_status st = cb_registry_add_family(f, why);
        if (st != CB_OK) return st;
    }
    return CB_OK;
}
