/* history_pg.c - the PostgreSQL store of the history (history_db.h),
 * through libpq. Built only with libpq (CB_HAVE_LIBPQ); without it opening
 * a postgresql:// database says so.
 *
 * Rows come back in single-row mode, so a `history check` over a million
 * results never holds them all in one PGresult. Writers serialise on a
 * transaction-scoped advisory lock (released by COMMIT, ROLLBACK or a lost
 * connection, so a killed writer never leaves it held); `lock_timeout`
 * bounds the wait as SQLite's busy timeout does. */
#include "history_db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The URI with a password replaced by ***, for messages. */
static void hide_password(const char *uri, char *out, size_t len)
{
    snprintf(out, len, "%s", uri);
    char *scheme = strstr(out, "://");
    if (!scheme) return;
    char *auth = scheme + 3, *at = strchr(auth, '@'), *slash = strchr(auth, '/');
    if (!at || (slash && slash < at)) return;
    char *colon = memchr(auth, ':', (size_t)(at - auth));
    if (!colon) return;
    char rest[512];
    snprintf(rest, sizeof rest, "%s", at);
    snprintf(colon, len - (size_t)(colon - out), ":***%s", rest);
}

#ifndef CB_HAVE_LIBPQ

bool cb_hdb_pg_built(void)
{
    return false;
}

bool cb_hdb_pg_open(const char *uri, double lock_timeout_s, cb_hdb **out, cb_msg *err)
{
    (void)lock_timeout_s;
    char shown[512];
    hide_password(uri, shown, sizeof shown);
    *out = NULL;
    cb_msg_set(err,
               "%s: this cubench was built without PostgreSQL (libpq); install libpq-dev "
               "(scripts/setup.sh) and rebuild, or use a SQLite file",
               shown);
    return false;
}

#else

#include <libpq-fe.h>

#define CB_PG_MAX_COLS   64
/* The advisory lock writers take: "cubench" in ASCII. */
#define CB_PG_WRITE_LOCK "63756265"

typedef struct pg_db {
    cb_hdb base;
    PGconn *conn;
    bool prepared[CB_STMT_COUNT];
} pg_db;

bool cb_hdb_pg_built(void)
{
    return true;
}

/* libpq's message on one line: its line breaks and tabs as single spaces,
 * no trailing blank. */
static const char *pg_message(const char *text, char *buf, size_t len)
{
    size_t n = 0;
    for (const char *c = text ? text : ""; *c && n + 1 < len; c++) {
        bool blank = *c == '\n' || *c == '\t' || *c == ' ';
        if (blank && (n == 0 || buf[n - 1] == ' ')) continue;
        buf[n++] = blank ? ' ' : *c;
    }
    while (n && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
    return buf;
}

/* The message of a failed result, naming a lock timeout as such. */
static void fail_result(pg_db *p, const PGresult *r, const char *what, cb_msg *err)
{
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    char buf[200];
    if (state && strcmp(state, "55P03") == 0) {
        cb_msg_set(err,
                   "%s: locked by another cubench writer (waited %g s); try again when it has "
                   "finished",
                   p->base.where, p->base.lock_timeout_s);
        return;
    }
    const char *text = r ? PQresultErrorMessage(r) : "";
    if (!text || !*text) text = PQerrorMessage(p->conn);
    cb_msg_set(err, "%s: %s: %s", p->base.where, what, pg_message(text, buf, sizeof buf));
}

static bool ok_status(ExecStatusType s)
{
    return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK || s == PGRES_SINGLE_TUPLE;
}

static bool pq_exec(cb_hdb *db, const char *sql, cb_msg *err)
{
    pg_db *p = (pg_db *)db;
    PGresult *r = PQexec(p->conn, sql);
    bool ok = r && ok_status(PQresultStatus(r));
    if (!ok) fail_result(p, r, sql, err);
    PQclear(r);
    return ok;
}

/* Send the statement (prepared once per slot) in single-row mode. */
static bool send(pg_db *p, cb_hdb_stmt slot, const char *sql, int n, const char *const *params,
                 cb_msg *err)
{
    int sent;
    if (slot >= 0) {
        char name[16];
        snprintf(name, sizeof name, "cb%d", (int)slot);
        if (!p->prepared[slot]) {
            PGresult *r = PQprepare(p->conn, name, sql, n, NULL);
            bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
            if (!ok) fail_result(p, r, "preparing a statement", err);
            PQclear(r);
            if (!ok) return false;
            p->prepared[slot] = true;
        }
        sent = PQsendQueryPrepared(p->conn, name, n, params, NULL, NULL, 0);
    } else {
        sent = PQsendQueryParams(p->conn, sql, n, NULL, params, NULL, NULL, 0);
    }
    if (!sent || !PQsetSingleRowMode(p->conn)) {
        fail_result(p, NULL, "sending a statement", err);
        return false;
    }
    return true;
}

static bool hand_row(const PGresult *r, cb_hdb_row_fn row, void *ctx, cb_msg *err)
{
    const char *vals[CB_PG_MAX_COLS];
    double nums[CB_PG_MAX_COLS];
    int n = PQnfields(r);
    if (n > CB_PG_MAX_COLS) n = CB_PG_MAX_COLS;
    for (int i = 0; i < n; i++) {
        vals[i] = PQgetisnull(r, 0, i) ? NULL : PQgetvalue(r, 0, i);
        nums[i] = NAN; /* libpq's text protocol: the readers parse */
    }
    return row(ctx, n, vals, nums, err);
}

static bool pq_query(cb_hdb *db, cb_hdb_stmt slot, const char *sql, int n,
                     const char *const *params, cb_hdb_row_fn row, void *ctx, cb_msg *err)
{
    pg_db *p = (pg_db *)db;
    if (!send(p, slot, sql, n, params, err)) return false;
    bool ok = true, stopped = false;
    PGresult *r;
    /* Every result is read, even after a failure: the connection is only
     * usable again once libpq has returned NULL. */
    while ((r = PQgetResult(p->conn)) != NULL) {
        ExecStatusType st = PQresultStatus(r);
        if (ok && !ok_status(st)) {
            fail_result(p, r, "running a statement", err);
            ok = false;
        } else if (ok && !stopped && st == PGRES_SINGLE_TUPLE && row) {
            if (!hand_row(r, row, ctx, err)) ok = false, stopped = true;
        }
        PQclear(r);
    }
    return ok;
}

static bool pq_begin_write(cb_hdb *db, cb_msg *err)
{
    return pq_exec(db, "BEGIN", err) &&
           pq_exec(db, "SELECT pg_advisory_xact_lock(" CB_PG_WRITE_LOCK ")", err);
}

static bool pq_begin_read(cb_hdb *db, cb_msg *err)
{
    return pq_exec(db, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", err);
}

static void pq_close(cb_hdb *db)
{
    pg_db *p = (pg_db *)db;
    PQfinish(p->conn);
    free(p);
}

static const cb_hdb_ops pg_ops = {
    .name = "postgresql",
    .id_type = "BIGSERIAL PRIMARY KEY",
    .exec = pq_exec,
    .query = pq_query,
    .begin_write = pq_begin_write,
    .begin_read = pq_begin_read,
    .close = pq_close,
};

/* NOTICEs (e.g. "relation already exists, skipping") are no news. */
static void quiet_notice(void *arg, const char *message)
{
    (void)arg, (void)message;
}

bool cb_hdb_pg_open(const char *uri, double lock_timeout_s, cb_hdb **out, cb_msg *err)
{
    *out = NULL;
    pg_db *p = calloc(1, sizeof *p);
    if (!p) return cb_hist_oom(err);
    p->base.ops = &pg_ops;
    p->base.lock_timeout_s = lock_timeout_s;
    hide_password(uri, p->base.where, sizeof p->base.where);
    /* connect_timeout before dbname: a value in the URI wins. */
    const char *keys[] = {"connect_timeout", "application_name", "dbname", NULL};
    const char *vals[] = {"10", "cubench", uri, NULL};
    p->conn = PQconnectdbParams(keys, vals, 1);
    char buf[200];
    if (!p->conn || PQstatus(p->conn) != CONNECTION_OK) {
        cb_msg_set(err, "%s: cannot connect: %s", p->base.where,
                   p->conn ? pg_message(PQerrorMessage(p->conn), buf, sizeof buf)
                           : "out of memory");
        pq_close(&p->base);
        return false;
    }
    PQsetNoticeProcessor(p->conn, quiet_notice, NULL);
    char set[96];
    long ms = (long)(lock_timeout_s * 1000.0); /* 0 would mean: wait for ever */
    snprintf(set, sizeof set, "SET lock_timeout = %ld", ms < 1 ? 1 : ms);
    if (!pq_exec(&p->base, set, err) ||
        !pq_exec(&p->base, "SET client_min_messages = warning", err)) {
        pq_close(&p->base);
        return false;
    }
    *out = &p->base;
    return true;
}

#endif
