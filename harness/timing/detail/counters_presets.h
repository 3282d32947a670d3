/* counters_presets.h - the --metrics presets as data (counters_presets.c).
 *
 * A preset is a list of entries; an entry is one metric, given as
 * alternatives for chips that name it differently (the first one a chip
 * knows is collected; a chip that knows none leaves the entry out). An entry
 * may feed a results.csv column (its role): the SOL figures, DRAM bytes, or
 * a term of the measured FLOPs (its weight: 2 operations per FMA). */
#ifndef CB_COUNTERS_PRESETS_H
#define CB_COUNTERS_PRESETS_H

#include <stdbool.h>

typedef enum cb_counters_role {
    CB_COUNTERS_ROLE_NONE = 0,
    CB_COUNTERS_ROLE_SOL_DRAM,   /* sol_dram_pct   */
    CB_COUNTERS_ROLE_SOL_L2,     /* sol_l2_pct     */
    CB_COUNTERS_ROLE_SOL_L1,     /* sol_l1_pct     */
    CB_COUNTERS_ROLE_SOL_SM,     /* sol_sm_pct     */
    CB_COUNTERS_ROLE_SOL_TENSOR, /* sol_tensor_pct */
    CB_COUNTERS_ROLE_DRAM_BYTES, /* dram_bytes     */
    CB_COUNTERS_ROLE_FLOPS,      /* a term of measured_flops */
} cb_counters_role;

#define CB_COUNTERS_ALTERNATIVES 3

typedef struct cb_counters_entry {
    const char *names[CB_COUNTERS_ALTERNATIVES]; /* first known on the chip wins; NULL ends */
    cb_counters_role role;
    double weight;      /* ROLE_FLOPS: operations per counted unit (0 reads as 1) */
    const char *unless; /* left out on a chip that knows this metric: it already
                         * counts what this entry would (no double counting) */
} cb_counters_entry;

typedef struct cb_counters_preset {
    const char *name;
    const char *summary;
    const cb_counters_entry *entries;
    int n;
} cb_counters_preset;

extern const cb_counters_preset cb_counters_presets[];
extern const int cb_counters_n_presets;

/* The preset called `name` (case-sensitive), or NULL. */
const cb_counters_preset *cb_counters_preset_find(const char *name);

/* The results.csv column a role fills ("sol_dram_pct", ...); NULL for none. */
const char *cb_counters_role_column(cb_counters_role role);

/* The field of v a role's value is copied into as it is (&v->sol_dram_pct,
 * ...); NULL for none and for a FLOP term, which is summed with the others
 * into measured_flops. */
struct cb_counters_values;
double *cb_counters_role_field(cb_counters_role role, struct cb_counters_values *v);

#endif
