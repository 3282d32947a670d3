/* history_db.c - open a history database by its URL, and the helpers both
 * stores share (history_db.h). */
#include "history_db.h"
#include "history_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cb_hist_open_opts_default(cb_hist_open_opts *o)
{
    o->write = false;
    o->lock_timeout_s = 30.0;
}

const char *cb_history_default_url(void)
{
    const char *env = getenv(CB_HIST_ENV);
    return env && *env ? env : CB_HIST_DEFAULT_PATH;
}

bool cb_history_has_postgresql(void)
{
    return cb_hdb_pg_built();
}

static bool is_postgres_url(const char *url)
{
    return strncmp(url, "postgresql://", 13) == 0 || strncmp(url, "postgres://", 11) == 0;
}

bool cb_history_open(const char *url, const cb_hist_open_opts *o, cb_history **out, cb_msg *err)
{
    *out = NULL;
    if (!url || !*url) {
        cb_msg_set(err, "history: an empty database name");
        return false;
    }
    cb_history *h = calloc(1, sizeof *h);
    if (!h) return cb_hist_oom(err);
    h->write = o->write;
    bool ok;
    if (is_postgres_url(url))
        ok = cb_hdb_pg_open(url, o->lock_timeout_s, &h->db, err);
    else
        ok = cb_hdb_sqlite_open(strncmp(url, "sqlite:", 7) == 0 ? url + 7 : url, o->write,
                                o->lock_timeout_s, &h->db, err);
    if (ok) ok = cb_hist_schema_prepare(h, err);
    if (!ok) {
        cb_history_close(h);
        return false;
    }
    *out = h;
    return true;
}

void cb_history_close(cb_history *h)
{
    if (!h) return;
    if (h->db) h->db->ops->close(h->db);
    free(h);
}

const char *cb_history_backend(const cb_history *h)
{
    return h->db->ops->name;
}

int cb_history_schema_found(const cb_history *h)
{
    return h->schema_found;
}

typedef struct first_row {
    int n;
    char *const *out;
    const size_t *len;
    bool found;
} first_row;

static bool keep_first(void *ctx, int n_cols, const char *const *vals, const double *nums,
                       cb_msg *err)
{
    (void)err, (void)nums;
    first_row *t = ctx;
    for (int i = 0; !t->found && i < t->n && i < n_cols; i++)
        snprintf(t->out[i], t->len[i], "%s", vals[i] ? vals[i] : "");
    t->found = true;
    return true;
}

bool cb_hdb_query_texts(cb_hdb *db, cb_hdb_stmt slot, const char *sql, int n,
                        const char *const *params, int n_out, char *const *out, const size_t *len,
                        bool *found, cb_msg *err)
{
    first_row t = {n_out, out, len, false};
    for (int i = 0; i < n_out; i++)
        out[i][0] = '\0';
    bool ok = db->ops->query(db, slot, sql, n, params, keep_first, &t, err);
    if (found) *found = t.found;
    return ok;
}

bool cb_hdb_query_text(cb_hdb *db, cb_hdb_stmt slot, const char *sql, int n,
                       const char *const *params, char *out, size_t len, bool *found, cb_msg *err)
{
    return cb_hdb_query_texts(db, slot, sql, n, params, 1, &out, &len, found, err);
}

bool cb_hdb_ddl(const cb_hdb *db, const char *sql, char *out, size_t len)
{
    size_t used = 0, id_len = strlen(db->ops->id_type);
    for (const char *c = sql; *c; c++) {
        bool id = strncmp(c, "{ID}", 4) == 0;
        size_t need = id ? id_len : 1;
        if (used + need + 1 > len) return false;
        if (id) {
            memcpy(out + used, db->ops->id_type, id_len);
            c += 3;
        } else {
            out[used] = *c;
        }
        used += need;
    }
    out[used] = '\0';
    return true;
}

const char *cb_hdb_num(double v, char buf[32])
{
    if (!isfinite(v)) return NULL;
    snprintf(buf, 32, "%.17g", v);
    return buf;
}

double cb_hdb_number(const char *const *vals, const double *nums, int i)
{
    if (!isnan(nums[i])) return nums[i];
    return vals[i] && *vals[i] ? strtod(vals[i], NULL) : NAN;
}
