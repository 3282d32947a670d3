/* history_add.c - store run directories: read with compare's loader, then
 * the machine, the run and its points and results (history_store.c), in one
 * transaction for every directory given (so `history add A B` stores both
 * or neither).
 *
 * Test hook: CUBENCH_HISTORY_FAULT=kill-after-points:N makes the process
 * kill itself (SIGKILL, as a CI job's time limit would) once the results
 * written hold the N-th point of a run, before the commit; the tests use it
 * to show that a killed add leaves nothing behind. */
#include "history_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void cb_history_machine_name(const char *host, const char *gpu, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", host && *host ? host : "unknown-host",
             gpu && *gpu ? gpu : "no GPU");
}

/* What identifies a run and where it ran, from its meta.json. The identity
 * names the build, the start second, host and GPU, and a hash of the host,
 * start time and command line (compare's run identity, compare_meta.h):
 * two runs of one build begun in the same second by different commands
 * are two runs. Databases written before the hash was part of it hold the
 * identity without it (`legacy`): a run stored under that one is found
 * as stored. */
typedef struct run_facts {
    char identity[672];
    char legacy[640];
    char digest[24];
    char machine[160];
    const char *git_sha, *started, *host, *gpu_name, *gpu_uuid;
    const char *driver, *driver_api, *runtime;
    char build[160];
    bool complete;
} run_facts;

static const char *condition(const cb_cmp_meta *m, const char *key)
{
    const char *v = cb_cmp_meta_get(m, key);
    return v ? v : "";
}

static bool read_facts(const cb_cmp_run *run, const char *dir, const cb_hist_add_opts *o,
                       run_facts *f, cb_msg *err)
{
    const cb_cmp_meta *m = &run->dirs[0].meta;
    if (!m->present || !m->started[0] || !m->git_sha[0]) {
        cb_msg_set(err,
                   "%s/meta.json: %s: the history needs the run's identity (git_sha, started, "
                   "build, host, GPU)",
                   dir,
                   !m->present      ? "missing"
                   : !m->started[0] ? "no `started`"
                                    : "no `git_sha`");
        return false;
    }
    f->git_sha = m->git_sha;
    f->started = m->started;
    f->host = m->hostname;
    f->gpu_name = m->device;
    f->gpu_uuid = condition(m, "device.uuid");
    f->driver = condition(m, "telemetry.driver_version");
    f->driver_api = condition(m, "cuda.driver_api_version");
    f->runtime = condition(m, "cuda.runtime_version");
    f->complete = m->complete == 1;
    snprintf(f->build, sizeof f->build, "%s;%s", condition(m, "build.type"),
             condition(m, "build.cuda_architectures"));
    snprintf(f->legacy, sizeof f->legacy, "git=%s|build=%s|started=%s|host=%s|gpu=%s", f->git_sha,
             f->build, f->started, f->host, f->gpu_uuid);
    if (m->identity)
        snprintf(f->identity, sizeof f->identity, "%s|run=%016llx", f->legacy,
                 (unsigned long long)m->identity);
    else
        snprintf(f->identity, sizeof f->identity, "%s", f->legacy);
    if (o->machine && *o->machine)
        snprintf(f->machine, sizeof f->machine, "%s", o->machine);
    else
        cb_history_machine_name(f->host, f->gpu_name, f->machine, sizeof f->machine);
    return true;
}

/* FNV-1a over what the run measured: every point, status, median and
 * sample. Two runs under one identity with different digests are two runs. */
static void fnv(uint64_t *h, const void *data, size_t n)
{
    const unsigned char *c = data;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ c[i]) * 0x100000001b3ull;
}

static void run_digest(const cb_cmp_run *run, char out[24])
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < run->n_points; i++) {
        const cb_cmp_point *p = &run->points[i];
        fnv(&h, p->benchmark, strlen(p->benchmark) + 1);
        fnv(&h, p->axes, strlen(p->axes) + 1);
        fnv(&h, p->status, strlen(p->status) + 1);
        fnv(&h, p->device, strlen(p->device) + 1);
        fnv(&h, &p->facts.median_s, sizeof p->facts.median_s);
        fnv(&h, p->times, (size_t)p->n * sizeof *p->times);
    }
    snprintf(out, 24, "%016llx", (unsigned long long)h);
}

/* The conditions of meta.json as one JSON object. */
static void conditions_json(const cb_cmp_meta *m, cb_hist_text *t)
{
    cb_hist_text_add(t, "{");
    for (int i = 0; i < m->n_conditions; i++) {
        cb_hist_text_add(t, i ? "," : "");
        cb_hist_text_json(t, m->conditions[i].key);
        cb_hist_text_add(t, ":");
        cb_hist_text_json(t, m->conditions[i].value);
    }
    cb_hist_text_add(t, "}");
}

static long long parse_id(const char *text)
{
    return text && *text ? strtoll(text, NULL, 10) : -1;
}

/* The id of the row an INSERT ... RETURNING id gave. */
static bool insert_returning(cb_hdb *db, cb_hdb_stmt slot, const char *sql, int n,
                             const char *const *params, long long *id, cb_msg *err)
{
    char text[32];
    bool found;
    if (!cb_hdb_query_text(db, slot, sql, n, params, text, sizeof text, &found, err)) return false;
    *id = parse_id(text);
    if (!found || *id < 0) {
        cb_msg_set(err, "%s: an insert returned no id", db->where);
        return false;
    }
    return true;
}

static void now_utc(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static bool insert_run(cb_hdb *db, const cb_cmp_run *run, const char *dir, const run_facts *f,
                       long long *run_id, cb_msg *err)
{
    long long machine_id;
    const char *mp[] = {f->machine};
    if (!insert_returning(db, CB_STMT_MACHINE_UPSERT,
                          "INSERT INTO cubench_machine (name) VALUES ($1) ON CONFLICT (name) DO "
                          "UPDATE SET name = excluded.name RETURNING id",
                          1, mp, &machine_id, err))
        return false;
    cb_hist_text cond = {0};
    conditions_json(&run->dirs[0].meta, &cond);
    if (cond.failed) {
        cb_hist_text_free(&cond);
        return cb_hist_oom(err);
    }
    char mid[32], added[32];
    snprintf(mid, sizeof mid, "%lld", machine_id);
    now_utc(added);
    const char *params[] = {f->identity,
                            f->digest,
                            mid,
                            f->started,
                            f->git_sha,
                            f->build,
                            f->host,
                            f->gpu_name,
                            f->gpu_uuid,
                            f->driver,
                            f->driver_api,
                            f->runtime,
                            f->complete ? "1" : "0",
                            dir,
                            added,
                            cond.s};
    bool ok = insert_returning(
        db, CB_STMT_RUN_INSERT,
        "INSERT INTO cubench_run (identity, digest, machine_id, started, git_sha, build, host,"
        " gpu_name, gpu_uuid, driver, driver_api, runtime, complete, path, added, conditions)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
        " RETURNING id",
        16, params, run_id, err);
    cb_hist_text_free(&cond);
    return ok;
}

/* The test hook (see the top of the file): results to write before dying. */
static long fault_kill_after(void)
{
    const char *f = getenv("CUBENCH_HISTORY_FAULT");
    const char *key = "kill-after-points:";
    if (!f || strncmp(f, key, strlen(key)) != 0) return -1;
    return strtol(f + strlen(key), NULL, 10);
}

/* Is the run stored already? *run_id >= 0 when it is; a stored run of the
 * same identity with other content is an error. Under the legacy identity
 * only the same content counts: another run there may be one begun in the
 * same second by another command, which the legacy identity cannot tell. */
static bool find_stored(cb_hdb *db, const char *dir, const run_facts *f, long long *run_id,
                        cb_msg *err)
{
    char id[32], digest[24], path[256];
    char *const cols[] = {id, digest, path};
    const size_t lens[] = {sizeof id, sizeof digest, sizeof path};
    const char *params[] = {f->identity};
    bool found;
    *run_id = -1;
    if (!cb_hdb_query_texts(db, CB_STMT_RUN_BY_IDENTITY,
                            "SELECT id, digest, path FROM cubench_run WHERE identity = $1", 1,
                            params, 3, cols, lens, &found, err))
        return false;
    if (!found && strcmp(f->legacy, f->identity) != 0) {
        params[0] = f->legacy;
        if (!cb_hdb_query_texts(db, CB_STMT_RUN_BY_IDENTITY,
                                "SELECT id, digest, path FROM cubench_run WHERE identity = $1", 1,
                                params, 3, cols, lens, &found, err))
            return false;
        if (found && strcmp(digest, f->digest) != 0) found = false;
    }
    if (!found) return true;
    if (strcmp(digest, f->digest) != 0) {
        cb_msg_set(err,
                   "%s: another run with the same identity (git SHA, build, start time, host, "
                   "GPU, command line) is stored as run %s (from %s); refusing to mix them",
                   dir, id, path);
        return false;
    }
    *run_id = parse_id(id);
    return true;
}

bool cb_hist_store_run(cb_hdb *db, const cb_cmp_run *run, const char *dir,
                       const cb_hist_add_opts *o, cb_hist_added *out, cb_msg *err)
{
    run_facts f;
    memset(&f, 0, sizeof f);
    if (!read_facts(run, dir, o, &f, err)) return false;
    run_digest(run, f.digest);
    memset(out, 0, sizeof *out);
    snprintf(out->machine, sizeof out->machine, "%s", f.machine);
    out->points = run->n_points;
    if (!find_stored(db, dir, &f, &out->run_id, err)) return false;
    if (out->run_id >= 0) {
        out->already = true;
        return true;
    }
    if (!insert_run(db, run, dir, &f, &out->run_id, err)) return false;
    char rid[32];
    snprintf(rid, sizeof rid, "%lld", out->run_id);
    long long *ids = malloc((size_t)(run->n_points + 1) * sizeof *ids);
    if (!ids) return cb_hist_oom(err);
    bool ok = cb_hist_store_points(db, run, ids, err) &&
              cb_hist_store_results(db, rid, run, ids, o->samples, fault_kill_after(), err);
    free(ids);
    return ok;
}

bool cb_history_add_many(cb_history *h, const char *const *dirs, int n, const cb_hist_add_opts *o,
                         cb_hist_added *out, cb_msg *err)
{
    cb_hdb *db = h->db;
    if (!db->ops->begin_write(db, err)) return false;
    bool ok = true;
    for (int i = 0; ok && i < n; i++) {
        cb_cmp_run run;
        cb_cmp_run_init(&run);
        run.samples_optional = true;
        cb_msg why;
        ok = cb_cmp_run_load(&run, dirs[i], &why);
        if (!ok) cb_msg_set(err, "%s", why.text);
        if (ok) ok = cb_hist_store_run(db, &run, dirs[i], o, &out[i], err);
        cb_cmp_run_free(&run);
    }
    if (ok) return db->ops->exec(db, "COMMIT", err);
    cb_msg quiet;
    db->ops->exec(db, "ROLLBACK", &quiet);
    return false;
}

bool cb_history_add(cb_history *h, const char *run_dir, const cb_hist_add_opts *o,
                    cb_hist_added *out, cb_msg *err)
{
    return cb_history_add_many(h, &run_dir, 1, o, out, err);
}
