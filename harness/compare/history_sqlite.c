/* history_sqlite.c - the SQLite store of the history (history_db.h).
 *
 * One connection, every repeated statement prepared once. The file's lock
 * is SQLite's own: a writer takes it with BEGIN IMMEDIATE and waits for
 * another writer through the busy timeout; a reader's BEGIN (deferred)
 * takes a shared lock at its first read. The default rollback journal is
 * kept (no WAL): it needs no shared-memory file beside the database, so a
 * read-only reader works on a file it cannot write. */
#include "history_db.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CB_SQLITE_MAX_COLS 64

typedef struct sqlite_db {
    cb_hdb base;
    sqlite3 *db;
    sqlite3_stmt *slots[CB_STMT_COUNT];
} sqlite_db;

/* The message of a failed call, naming a lock as such. */
static void fail(sqlite_db *s, const char *what, int rc, cb_msg *err)
{
    int primary = rc & 0xff;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
        cb_msg_set(err,
                   "%s: the database is locked by another process (waited %g s); try again "
                   "when it has finished",
                   s->base.where, s->base.lock_timeout_s);
    else if (primary == SQLITE_NOTADB)
        cb_msg_set(err, "%s: not a SQLite database (and so not a cubench history)", s->base.where);
    else
        cb_msg_set(err, "%s: %s: %s", s->base.where, what, sqlite3_errmsg(s->db));
}

static bool sq_exec(cb_hdb *db, const char *sql, cb_msg *err)
{
    sqlite_db *s = (sqlite_db *)db;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        fail(s, sql, rc, err);
        return false;
    }
    return true;
}

/* `sql` with $N spelled ? when the parameters appear in order 1, 2, 3, ...
 * (every statement here), else ?N. SQLite reads $N as a named parameter
 * numbered by order of appearance, not N; and ?N makes it look each number
 * up by a linear search, quadratic in a batch of 1,280 parameters. */
static char *sqlite_spelling(const char *sql)
{
    char *out = strdup(sql);
    if (!out) return NULL;
    long next = 1;
    bool in_order = true;
    for (const char *c = sql; *c; c++)
        if (*c == '$' && c[1] >= '0' && c[1] <= '9')
            in_order = in_order && strtol(c + 1, NULL, 10) == next++;
    char *w = out;
    for (const char *c = sql; *c;) {
        if (*c == '$' && c[1] >= '0' && c[1] <= '9') {
            *w++ = '?';
            c++;
            while (in_order && *c >= '0' && *c <= '9')
                c++; /* the number is dropped: positional */
            continue;
        }
        *w++ = *c++;
    }
    *w = '\0';
    return out;
}

static bool prepare(sqlite_db *s, cb_hdb_stmt slot, const char *sql, sqlite3_stmt **st, cb_msg *err)
{
    if (slot >= 0 && s->slots[slot]) {
        *st = s->slots[slot];
        return true;
    }
    char *text = sqlite_spelling(sql);
    if (!text) return cb_hist_oom(err);
    int rc = sqlite3_prepare_v2(s->db, text, -1, st, NULL);
    free(text);
    if (rc != SQLITE_OK) {
        fail(s, "preparing a statement", rc, err);
        return false;
    }
    if (slot >= 0) s->slots[slot] = *st;
    return true;
}

static bool bind_all(sqlite_db *s, sqlite3_stmt *st, int n, const char *const *params, cb_msg *err)
{
    for (int i = 0; i < n; i++) {
        int rc = params[i] ? sqlite3_bind_text(st, i + 1, params[i], -1, SQLITE_TRANSIENT)
                           : sqlite3_bind_null(st, i + 1);
        if (rc != SQLITE_OK) {
            fail(s, "binding a parameter", rc, err);
            return false;
        }
    }
    return true;
}

/* Step through the rows, handing each to `row`. */
static bool step_rows(sqlite_db *s, sqlite3_stmt *st, cb_hdb_row_fn row, void *ctx, cb_msg *err)
{
    const char *vals[CB_SQLITE_MAX_COLS];
    double nums[CB_SQLITE_MAX_COLS];
    for (;;) {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE) return true;
        if (rc != SQLITE_ROW) {
            fail(s, "running a statement", rc, err);
            return false;
        }
        if (!row) continue;
        int n = sqlite3_column_count(st);
        if (n > CB_SQLITE_MAX_COLS) n = CB_SQLITE_MAX_COLS;
        for (int i = 0; i < n; i++) {
            bool real = sqlite3_column_type(st, i) == SQLITE_FLOAT;
            nums[i] = real ? sqlite3_column_double(st, i) : NAN;
            vals[i] = real ? NULL : (const char *)sqlite3_column_text(st, i);
        }
        if (!row(ctx, n, vals, nums, err)) return false;
    }
}

static bool sq_query(cb_hdb *db, cb_hdb_stmt slot, const char *sql, int n,
                     const char *const *params, cb_hdb_row_fn row, void *ctx, cb_msg *err)
{
    sqlite_db *s = (sqlite_db *)db;
    sqlite3_stmt *st = NULL;
    if (!prepare(s, slot, sql, &st, err)) return false;
    bool ok = bind_all(s, st, n, params, err) && step_rows(s, st, row, ctx, err);
    if (slot >= 0) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    } else {
        sqlite3_finalize(st);
    }
    return ok;
}

static bool sq_begin_write(cb_hdb *db, cb_msg *err)
{
    return sq_exec(db, "BEGIN IMMEDIATE", err);
}

static bool sq_begin_read(cb_hdb *db, cb_msg *err)
{
    return sq_exec(db, "BEGIN", err);
}

static void sq_close(cb_hdb *db)
{
    sqlite_db *s = (sqlite_db *)db;
    for (int i = 0; i < CB_STMT_COUNT; i++)
        sqlite3_finalize(s->slots[i]);
    sqlite3_close(s->db);
    free(s);
}

static const cb_hdb_ops sqlite_ops = {
    .name = "sqlite",
    .id_type = "INTEGER PRIMARY KEY",
    .exec = sq_exec,
    .query = sq_query,
    .begin_write = sq_begin_write,
    .begin_read = sq_begin_read,
    .close = sq_close,
};

bool cb_hdb_sqlite_open(const char *path, bool create, double lock_timeout_s, cb_hdb **out,
                        cb_msg *err)
{
    *out = NULL;
    struct stat st;
    if (!create && stat(path, &st) != 0) {
        cb_msg_set(err, "%s: no history database there (%s); `cubench history add` creates one",
                   path, strerror(errno));
        return false;
    }
    sqlite_db *s = calloc(1, sizeof *s);
    if (!s) return cb_hist_oom(err);
    s->base.ops = &sqlite_ops;
    s->base.lock_timeout_s = lock_timeout_s;
    snprintf(s->base.where, sizeof s->base.where, "%s", path);
    int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    int rc = sqlite3_open_v2(path, &s->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        cb_msg_set(err, "%s: cannot open: %s", path,
                   s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        sq_close(&s->base);
        return false;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, (int)(lock_timeout_s * 1000.0));
    if (!sq_exec(&s->base, "PRAGMA foreign_keys = ON", err)) {
        sq_close(&s->base);
        return false;
    }
    *out = &s->base;
    return true;
}
