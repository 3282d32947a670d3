/* history_schema.c - the history's schema, its version and its migrations.
 *
 * The version lives in cubench_meta ('schema_version'). A new database is
 * built by the same steps an old one is migrated by (step 1 creates version
 * 1, step v takes v - 1 to v), so every migration runs every time a
 * history is created, and the tests build each old version from its steps.
 * Each step is one write transaction that re-reads the version first: two
 * processes opening one new database at once apply each step once.
 * Tables carry a cubench_ prefix, so a team's PostgreSQL database can hold
 * them beside its own. */
#include "build_info.h"
#include "compare_kind.h"
#include "history_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cb_hist_schema_steps[CB_HIST_SCHEMA] = {
    /* 1: runs, machines, points and their results */
    "CREATE TABLE cubench_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE cubench_machine (id {ID}, name TEXT NOT NULL UNIQUE);"
    "CREATE TABLE cubench_run ("
    " id {ID}, identity TEXT NOT NULL UNIQUE, digest TEXT NOT NULL,"
    " machine_id BIGINT NOT NULL REFERENCES cubench_machine (id),"
    " started TEXT NOT NULL, git_sha TEXT NOT NULL, build TEXT NOT NULL, host TEXT NOT NULL,"
    " gpu_name TEXT NOT NULL, gpu_uuid TEXT NOT NULL, driver TEXT NOT NULL,"
    " driver_api TEXT NOT NULL, runtime TEXT NOT NULL, complete INTEGER NOT NULL,"
    " path TEXT NOT NULL, added TEXT NOT NULL, conditions TEXT NOT NULL);"
    "CREATE INDEX cubench_run_by_machine ON cubench_run (machine_id, started);"
    "CREATE TABLE cubench_point ("
    " id {ID}, benchmark TEXT NOT NULL, axes TEXT NOT NULL, device TEXT NOT NULL DEFAULT '',"
    " UNIQUE (benchmark, axes, device));"
    "CREATE TABLE cubench_result ("
    " run_id BIGINT NOT NULL REFERENCES cubench_run (id),"
    " point_id BIGINT NOT NULL REFERENCES cubench_point (id),"
    " status TEXT NOT NULL, reason TEXT NOT NULL, timer TEXT NOT NULL, batch INTEGER,"
    " median_s DOUBLE PRECISION, ci_lo_s DOUBLE PRECISION, ci_hi_s DOUBLE PRECISION,"
    " n_samples INTEGER NOT NULL, est_center DOUBLE PRECISION, est_var DOUBLE PRECISION,"
    " est_df DOUBLE PRECISION, est_basis TEXT, throttle TEXT,"
    " PRIMARY KEY (run_id, point_id));"
    "INSERT INTO cubench_meta (key, value) VALUES ('schema_version', '1');",
    /* 2: the kind of a point (inferred for the points already stored), the
     * telemetry summary, the replicate medians and optional samples of a
     * result, and an index for reading one point's series */
    "ALTER TABLE cubench_point ADD COLUMN kind TEXT;"
    "ALTER TABLE cubench_result ADD COLUMN sm_clock_mhz DOUBLE PRECISION;"
    "ALTER TABLE cubench_result ADD COLUMN power_w DOUBLE PRECISION;"
    "ALTER TABLE cubench_result ADD COLUMN temp_c DOUBLE PRECISION;"
    "ALTER TABLE cubench_result ADD COLUMN unit_medians TEXT;"
    "ALTER TABLE cubench_result ADD COLUMN sample_times TEXT;"
    "CREATE INDEX cubench_result_by_point ON cubench_result (point_id);"
    "UPDATE cubench_meta SET value = '2' WHERE key = 'schema_version';",
    /* 3: copies from pageable memory became a kind of their own
     * (staged_copy); points stored before as host_copy are read as compare
     * reads such a row (compare_kind.h) */
    "UPDATE cubench_point SET kind = 'staged_copy'"
    " WHERE kind = 'host_copy' AND ';' || axes || ';' LIKE '%;memory=pageable;%';"
    "UPDATE cubench_meta SET value = '3' WHERE key = 'schema_version';",
};

/* The SQL that says whether cubench_meta exists (a row) in this store. */
static const char *meta_exists_sql(const cb_hdb *db)
{
    if (strcmp(db->ops->name, "sqlite") == 0)
        return "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'cubench_meta'";
    return "SELECT 1 WHERE to_regclass('cubench_meta') IS NOT NULL";
}

/* Tables other than ours (SQLite only: a file of somebody else's). */
static bool foreign_tables(cb_hdb *db, bool *any, cb_msg *err)
{
    *any = false;
    if (strcmp(db->ops->name, "sqlite") != 0) return true;
    char text[32];
    return cb_hdb_query_text(db, CB_STMT_ONCE,
                             "SELECT 1 FROM sqlite_master WHERE name NOT LIKE 'cubench%' AND "
                             "name NOT LIKE 'sqlite%'",
                             0, NULL, text, sizeof text, any, err);
}

/* The version stored, 0 when there is no cubench_meta. */
static bool read_version(cb_history *h, int *version, cb_msg *err)
{
    char text[64];
    bool found;
    *version = 0;
    if (!cb_hdb_query_text(h->db, CB_STMT_ONCE, meta_exists_sql(h->db), 0, NULL, text, sizeof text,
                           &found, err))
        return false;
    if (!found) return true;
    if (!cb_hdb_query_text(h->db, CB_STMT_ONCE,
                           "SELECT value FROM cubench_meta WHERE key = 'schema_version'", 0, NULL,
                           text, sizeof text, &found, err))
        return false;
    char *end = NULL;
    long v = found ? strtol(text, &end, 10) : 0;
    if (!found || *end || v < 1 || v > 1000000) {
        cb_msg_set(err, "%s: cubench_meta holds no valid schema_version ('%.20s')", h->db->where,
                   text);
        return false;
    }
    *version = (int)v;
    return true;
}

/* Step 2's part that SQL cannot do: the kind of every point stored before,
 * inferred as a run without a `kind` column gets it. */
typedef struct kind_row {
    long long id;
    char benchmark[256], axes[512], timer[16];
} kind_row;

typedef struct kind_rows {
    kind_row *rows;
    int n, cap;
} kind_rows;

static bool collect_kind_row(void *ctx, int n_cols, const char *const *vals, const double *nums,
                             cb_msg *err)
{
    (void)nums;
    kind_rows *k = ctx;
    if (n_cols < 4 || !vals[0] || !vals[1]) return true;
    kind_row *rows = cb_grow_array(k->rows, k->n, &k->cap, 64, sizeof *rows);
    if (!rows) return cb_hist_oom(err);
    k->rows = rows;
    kind_row *r = &k->rows[k->n++];
    r->id = strtoll(vals[0], NULL, 10);
    snprintf(r->benchmark, sizeof r->benchmark, "%s", vals[1]);
    snprintf(r->axes, sizeof r->axes, "%s", vals[2] ? vals[2] : "");
    snprintf(r->timer, sizeof r->timer, "%s", vals[3] ? vals[3] : "");
    return true;
}

static bool infer_old_kinds(cb_history *h, cb_msg *err)
{
    kind_rows k = {0};
    bool ok =
        h->db->ops->query(h->db, CB_STMT_ONCE,
                          "SELECT p.id, p.benchmark, p.axes, (SELECT r.timer FROM cubench_result r"
                          " WHERE r.point_id = p.id LIMIT 1) FROM cubench_point p"
                          " WHERE p.kind IS NULL",
                          0, NULL, collect_kind_row, &k, err);
    for (int i = 0; ok && i < k.n; i++) {
        char id[32], family[128];
        snprintf(id, sizeof id, "%lld", k.rows[i].id);
        snprintf(family, sizeof family, "%.*s", (int)strcspn(k.rows[i].benchmark, "/"),
                 k.rows[i].benchmark);
        /* compare's rules for a run without a `kind` column (compare_kind.h);
         * a stored point keeps no axes' meaning beyond its text, nor the run's
         * python.json, so Python framework points come out by their timer */
        cb_cmp_kind_facts facts = {.family = family,
                                   .axes = k.rows[i].axes,
                                   .timer = k.rows[i].timer,
                                   .has_device_col = false,
                                   .device = "",
                                   .python_family = false};
        const char *params[] = {cb_cmp_kind_name(cb_cmp_kind_infer(&facts)), id};
        ok = h->db->ops->query(h->db, CB_STMT_ONCE,
                               "UPDATE cubench_point SET kind = $1 WHERE id = $2", 2, params, NULL,
                               NULL, err);
    }
    free(k.rows);
    return ok;
}

/* Apply step `to` (from to - 1) unless another process already has. */
static bool apply_step(cb_history *h, int to, cb_msg *err)
{
    cb_hdb *db = h->db;
    if (!db->ops->begin_write(db, err)) return false;
    int now = 0;
    bool ok = read_version(h, &now, err);
    if (ok && now == to - 1) {
        size_t len = strlen(cb_hist_schema_steps[to - 1]) * 2 + 256;
        char *sql = malloc(len);
        ok = sql && cb_hdb_ddl(db, cb_hist_schema_steps[to - 1], sql, len);
        if (!ok) cb_hist_oom(err);
        if (ok) ok = db->ops->exec(db, sql, err);
        free(sql);
        if (ok && to == 2) ok = infer_old_kinds(h, err);
        if (ok && to == 1) {
            const char *params[] = {"cubench " CB_VERSION};
            ok = db->ops->query(db, CB_STMT_ONCE,
                                "INSERT INTO cubench_meta (key, value) VALUES ('created_by', $1)",
                                1, params, NULL, NULL, err);
        }
    } else if (ok && now != to - 1 && now < to) {
        cb_msg_set(err, "%s: schema_version %d while migrating to %d", db->where, now, to);
        ok = false;
    }
    if (ok) return db->ops->exec(db, "COMMIT", err);
    cb_msg quiet;
    db->ops->exec(db, "ROLLBACK", &quiet);
    return false;
}

bool cb_hist_schema_migrate(cb_history *h, int from, int to, cb_msg *err)
{
    for (int v = from + 1; v <= to; v++)
        if (!apply_step(h, v, err)) return false;
    return true;
}

static bool refuse_newer(const cb_history *h, int found, cb_msg *err)
{
    cb_msg_set(err,
               "%s: a history of schema %d, from a newer cubench; this one (%s) reads schema "
               "1 to %d: use a newer cubench",
               h->db->where, found, CB_VERSION, CB_HIST_SCHEMA);
    return false;
}

bool cb_hist_schema_prepare(cb_history *h, cb_msg *err)
{
    int found = 0;
    if (!read_version(h, &found, err)) return false;
    h->schema_found = found;
    if (found > CB_HIST_SCHEMA) return refuse_newer(h, found, err);
    if (found == 0) {
        bool other = false;
        if (!foreign_tables(h->db, &other, err)) return false;
        if (other || !h->write) {
            cb_msg_set(err, "%s: not a cubench history (no cubench_meta table%s)", h->db->where,
                       other ? "; it holds other tables" : "");
            return false;
        }
    }
    if (found == CB_HIST_SCHEMA) return true;
    if (!h->write) {
        cb_msg_set(err,
                   "%s: a history of schema %d, from an older cubench; `cubench history "
                   "migrate` brings it to schema %d",
                   h->db->where, found, CB_HIST_SCHEMA);
        return false;
    }
    if (!cb_hist_schema_migrate(h, found, CB_HIST_SCHEMA, err)) return false;
    /* Another process may have gone further in the meantime. */
    int now = 0;
    if (!read_version(h, &now, err)) return false;
    return now <= CB_HIST_SCHEMA || refuse_newer(h, now, err);
}
