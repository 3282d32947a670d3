/* history_db.h - the one interface of the history's two stores (SQLite,
 * PostgreSQL). Everything above it writes one SQL text per statement:
 *   - parameters are $1, $2, ... (numbered from 1 in order of first use);
 *     SQLite's backend spells them ?1, ?2;
 *   - values travel as text both ways (doubles as %.17g), NULL as NULL;
 *   - DDL names the key column type {ID} (INTEGER PRIMARY KEY in SQLite,
 *     BIGSERIAL PRIMARY KEY in PostgreSQL) and floats DOUBLE PRECISION;
 *   - each statement the program runs more than once has a fixed slot
 *     (cb_hdb_stmt), so the backend prepares it once per connection.
 * A write transaction is taken with begin_write: SQLite's BEGIN IMMEDIATE
 * (the file's write lock, waiting up to the lock timeout) or PostgreSQL's
 * BEGIN plus a transaction-scoped advisory lock (lock_timeout alike), so
 * two writers never interleave and neither can see the other's half. */
#ifndef CB_HISTORY_DB_H
#define CB_HISTORY_DB_H

#include "cb_common.h"

/* Out of memory: err says so in the history's one wording, and false, so
 * that a step can end with `return cb_hist_oom(err)`. */
static inline bool cb_hist_oom(cb_msg *err)
{
    cb_msg_set(err, "history: out of memory");
    return false;
}

/* Statements run more than once, one slot each (prepared once). */
typedef enum cb_hdb_stmt {
    CB_STMT_ONCE = -1, /* prepare, run, forget */
    CB_STMT_RUN_BY_IDENTITY = 0,
    CB_STMT_MACHINE_UPSERT,
    CB_STMT_RUN_INSERT,
    CB_STMT_POINT_RESULTS,
    CB_STMT_POINTS_DECLARED, /* a full batch of points (history_store.c) */
    CB_STMT_POINTS_INFERRED,
    CB_STMT_RESULTS,
    CB_STMT_COUNT
} cb_hdb_stmt;

/* Called per result row. Column i is `vals[i]` as text, except a SQLite
 * REAL, which comes as the number `nums[i]` (vals[i] NULL): printing a
 * million doubles only to parse them again took most of a `history check`.
 * Otherwise nums[i] is NAN; SQL NULL is vals[i] NULL and nums[i] NAN.
 * cb_hdb_number reads a number either way. Returning false stops the query
 * (it then fails with `err` as the callee set it). */
typedef bool (*cb_hdb_row_fn)(void *ctx, int n_cols, const char *const *vals, const double *nums,
                              cb_msg *err);

/* Column i of a row as a number: nums[i], else its text parsed, else NAN. */
double cb_hdb_number(const char *const *vals, const double *nums, int i);

typedef struct cb_hdb cb_hdb;

typedef struct cb_hdb_ops {
    const char *name;    /* "sqlite", "postgresql" */
    const char *id_type; /* the {ID} of DDL */
    /* A statement without parameters or rows (DDL, COMMIT, ROLLBACK). */
    bool (*exec)(cb_hdb *db, const char *sql, cb_msg *err);
    /* A statement with `n` text parameters; each row goes to `row` (NULL:
     * rows are discarded). */
    bool (*query)(cb_hdb *db, cb_hdb_stmt slot, const char *sql, int n, const char *const *params,
                  cb_hdb_row_fn row, void *ctx, cb_msg *err);
    /* Start the write transaction (see above). */
    bool (*begin_write)(cb_hdb *db, cb_msg *err);
    /* Start a read transaction (one consistent view). */
    bool (*begin_read)(cb_hdb *db, cb_msg *err);
    void (*close)(cb_hdb *db);
} cb_hdb_ops;

struct cb_hdb {
    const cb_hdb_ops *ops;
    char where[512];       /* the database as messages name it */
    double lock_timeout_s; /* how long begin_write waits      */
};

/* The backends. `target` is the file path or the libpq URI. `create`: a
 * SQLite file may be created (else it must exist). */
bool cb_hdb_sqlite_open(const char *path, bool create, double lock_timeout_s, cb_hdb **out,
                        cb_msg *err);
bool cb_hdb_pg_open(const char *uri, double lock_timeout_s, cb_hdb **out, cb_msg *err);
bool cb_hdb_pg_built(void);

/* Run `sql` expecting at most one row and copy its first column into
 * `out` (len bytes); *found says whether there was a row (out "" if not,
 * or if the value is NULL). */
bool cb_hdb_query_text(cb_hdb *db, cb_hdb_stmt slot, const char *sql, int n,
                       const char *const *params, char *out, size_t len, bool *found, cb_msg *err);

/* The same for the first n_out columns, column i into out[i] (len[i]
 * bytes). */
bool cb_hdb_query_texts(cb_hdb *db, cb_hdb_stmt slot, const char *sql, int n,
                        const char *const *params, int n_out, char *const *out, const size_t *len,
                        bool *found, cb_msg *err);

/* `sql` with every {ID} replaced by the backend's key type, in `out`. */
bool cb_hdb_ddl(const cb_hdb *db, const char *sql, char *out, size_t len);

/* A double as parameter text ("%.17g"), or NULL (SQL NULL) when not finite. */
const char *cb_hdb_num(double v, char buf[32]);

#endif
