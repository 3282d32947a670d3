/* meta.h - meta.json: the environment and settings of one run. */
#ifndef CB_META_H
#define CB_META_H

#include "run_config.h"

#include <time.h>

typedef struct cb_meta {
    int argc;
    char **argv;
    time_t started, finished; /* finished == 0 while running */
    bool complete;            /* the sweep ended normally    */
    cb_run_totals totals;
    const cb_run_config *cfg;
    char cupti_state[CB_MSG_LEN]; /* "active", "off (--no-cupti)", or why not */
} cb_meta;

/* Write <dir>/meta.json atomically (temporary file + rename). */
bool cb_meta_write(const char *dir, const cb_meta *m, cb_msg *err);

#endif
