/* test_history_cases.h - the history store's tests, run against each backend by
 * test_history_sqlite.c and test_history_postgres.c: the same cases, a
 * database URL apart. Each case makes its own run directories (small
 * synthetic runs: a few points, a few samples) under the test's temporary
 * directory, and opens the database afresh. */
#ifndef CB_TEST_HISTORY_CASES_H
#define CB_TEST_HISTORY_CASES_H

#include "cb_test_files.h"
#include "history.h"
#include "history_impl.h"
#include "cb_test.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A synthetic run: `points` vecadd points (the last one vecadd/host), each
 * with 12 samples around 10 us * (1 + 0.01 p) * factor (the samples spread
 * by 0.2% around it), started at minute `minute`, built at commit `sha`. */
typedef struct hist_run_spec {
    int points;
    int minute;
    const char *sha;
    double factor;
    const char *driver;   /* telemetry.driver_version, NULL: none */
    const char *uuid;     /* device.uuid, NULL: GPU-a */
    const char *throttle; /* the throttle cell of every point, NULL: none */
    const char *command;  /* meta.json's command_line: cubench run COMMAND; NULL: none */
} hist_run_spec;

static char hist_tmp[256];

static const char *hist_bench(int p, int points)
{
    return p == points - 1 ? "vecadd/host" : "vecadd/float4_per_thread";
}

static bool hist_write_run(const char *dir, const hist_run_spec *s)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) return false;
    char path[512], line[512];
    size_t cap = 65536;
    char *res = malloc(cap), *smp = malloc(cap * 4);
    if (!res || !smp) return false;
    snprintf(res, cap,
             "schema_version,benchmark,family,axes,status,reason,timer,batch,samples,"
             "median_s,ci_lo_s,ci_hi_s,sm_clock_median_mhz,power_mean_w,temp_max_c,"
             "throttle\n");
    snprintf(smp, cap * 4, "benchmark,axes,sample,time_s,replicate\n");
    for (int p = 0; p < s->points; p++) {
        double t = 10e-6 * (1.0 + 0.01 * p) * s->factor;
        snprintf(line, sizeof line,
                 "2,%s,vecadd,n=%d;block=256,ok,,%s,1,12,%.9g,%.9g,%.9g,1980,"
                 "300,50,%s\n",
                 hist_bench(p, s->points), 1 << (10 + p), p == s->points - 1 ? "host" : "event", t,
                 t * 0.998, t * 1.002, s->throttle ? s->throttle : "none");
        strcat(res, line);
        for (int k = 0; k < 12; k++) {
            double x = t * (1.0 + 0.002 * ((k % 5) - 2) / 2.0);
            snprintf(line, sizeof line, "%s,n=%d;block=256,%d,%.9g,%d\n", hist_bench(p, s->points),
                     1 << (10 + p), k, x, k / 6);
            strcat(smp, line);
        }
    }
    snprintf(path, sizeof path, "%s/results.csv", dir);
    bool ok = cb_test_write_text(path, res);
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    ok = ok && cb_test_write_text(path, smp);
    char telemetry[128] = "", command[128] = "";
    if (s->driver)
        snprintf(telemetry, sizeof telemetry, ",\"telemetry\":{\"driver_version\":\"%s\"}",
                 s->driver);
    if (s->command)
        snprintf(command, sizeof command, ",\"command_line\":[\"cubench\",\"run\",\"%s\"]",
                 s->command);
    snprintf(res, cap,
             "{\"schema_version\":2,\"git_sha\":\"%s\",\"started\":\"2027-01-01T10:%02d:00Z\","
             "\"complete\":true,\"build\":{\"type\":\"Release\",\"cuda_architectures\":\"90\"},"
             "\"host\":{\"hostname\":\"testhost\"},\"cuda\":{\"runtime_version\":\"13.0\","
             "\"driver_api_version\":\"13.0\"},\"device\":{\"name\":\"NVIDIA H200\","
             "\"uuid\":\"%s\"}%s%s}\n",
             s->sha, s->minute, s->uuid ? s->uuid : "GPU-a", telemetry, command);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    ok = ok && cb_test_write_text(path, res);
    free(res), free(smp);
    return ok;
}

/* Run directory `name` under the temporary directory, written from `s`. */
static const char *hist_run(const char *name, const hist_run_spec *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", hist_tmp, name);
    CB_CHECK_MSG(hist_write_run(buf, s), "writing %s", buf);
    return buf;
}

static cb_history *hist_open(const char *url, bool write, double lock_timeout_s)
{
    cb_hist_open_opts o;
    cb_hist_open_opts_default(&o);
    o.write = write;
    o.lock_timeout_s = lock_timeout_s;
    cb_history *h = NULL;
    cb_msg err = {{0}};
    bool ok = cb_history_open(url, &o, &h, &err);
    CB_CHECK_MSG(ok, "open %s: %s", url, err.text);
    return ok ? h : NULL;
}

/* Runs stored, and the values of every series, in `d`. */
static int hist_count_runs(const char *url, int *values)
{
    cb_history *h = hist_open(url, false, 5.0);
    if (!h) return -1;
    cb_hist_data d;
    cb_msg err = {{0}};
    int runs = -1;
    if (cb_history_load(h, NULL, &d, &err)) {
        runs = d.n_runs;
        *values = 0;
        for (int i = 0; i < d.n_series; i++)
            *values += d.series[i].n;
        cb_hist_data_free(&d);
    }
    CB_CHECK_MSG(runs >= 0, "load: %s", err.text);
    cb_history_close(h);
    return runs;
}

static bool hist_add(const char *url, const char *dir, cb_hist_added *out, cb_msg *err)
{
    cb_history *h = hist_open(url, true, 10.0);
    if (!h) return false;
    cb_hist_add_opts o = {NULL, false};
    bool ok = cb_history_add(h, dir, &o, out, err);
    cb_history_close(h);
    return ok;
}

/* ---- the cases ---- */

/* Adding is idempotent by the run's identity; another run under the same
 * identity is refused; an invalid directory leaves the database as it was. */
static void case_add_idempotent(const char *url)
{
    char a[512], b[512], bad[512], same_id[512];
    hist_run_spec s = {4, 1, "aaa111", 1.0, NULL, NULL, NULL, NULL};
    hist_run("idem-a", &s, a, sizeof a);
    s.minute = 2, s.sha = "bbb222";
    hist_run("idem-b", &s, b, sizeof b);
    cb_hist_added out;
    cb_msg err = {{0}};
    CB_CHECK_MSG(hist_add(url, a, &out, &err), "%s", err.text);
    CB_CHECK(!out.already && out.points == 4 && strcmp(out.machine, "testhost/NVIDIA H200") == 0);
    long long first_id = out.run_id;
    CB_CHECK(hist_add(url, a, &out, &err) && out.already && out.run_id == first_id);
    int values = 0;
    CB_CHECK(hist_count_runs(url, &values) == 1 && values == 4);
    /* the same identity with other numbers: refused, named */
    s.minute = 1, s.sha = "aaa111", s.factor = 1.5;
    hist_run("idem-a-other", &s, same_id, sizeof same_id);
    CB_CHECK(!hist_add(url, same_id, &out, &err));
    CB_CHECK_CONTAINS(err.text, "same identity");
    /* a batch with an invalid directory stores nothing of the batch */
    snprintf(bad, sizeof bad, "%s/idem-bad", hist_tmp);
    s.factor = 1.0;
    hist_write_run(bad, &s);
    char path[600];
    snprintf(path, sizeof path, "%s/results.csv", bad);
    CB_CHECK(cb_test_write_text(path, "schema_version,benchmark,axes,status\n2,vecadd/x,n=1"));
    cb_history *h = hist_open(url, true, 10.0);
    const char *dirs[] = {b, bad};
    cb_hist_added outs[2];
    cb_hist_add_opts o = {NULL, false};
    CB_CHECK(h && !cb_history_add_many(h, dirs, 2, &o, outs, &err));
    CB_CHECK_CONTAINS(err.text, "idem-bad/results.csv");
    cb_history_close(h);
    CB_CHECK(hist_count_runs(url, &values) == 1 && values == 4);
    CB_CHECK_MSG(hist_add(url, b, &out, &err), "%s", err.text);
    CB_CHECK(hist_count_runs(url, &values) == 2 && values == 8);
}

/* A run without samples.csv is stored from results.csv; with --samples
 * every sample of a run that has them is kept. Kinds are inferred. */
static void case_contents(const char *url)
{
    char a[512];
    hist_run_spec s = {3, 3, "ccc333", 1.0, "580.159.04", NULL, NULL, NULL};
    hist_run("contents", &s, a, sizeof a);
    cb_history *h = hist_open(url, true, 10.0);
    cb_hist_add_opts o = {"ci-runner-1", true};
    cb_hist_added out;
    cb_msg err = {{0}};
    CB_CHECK_MSG(h && cb_history_add(h, a, &o, &out, &err), "%s", err.text);
    CB_CHECK(strcmp(out.machine, "ci-runner-1") == 0);
    const char *axes[] = {"n=1024"};
    cb_hist_filter f = {"ci-runner-1", "vecadd/*", axes, 1, NULL, NULL, NULL};
    cb_hist_data d;
    CB_CHECK_MSG(h && cb_history_load(h, &f, &d, &err), "%s", err.text);
    CB_CHECK(d.n_runs == 1 && d.n_series == 1);
    if (d.n_series == 1) {
        CB_CHECK(strcmp(d.series[0].kind, "device") == 0 && d.series[0].n == 1);
        CB_CHECK_NEAR(d.series[0].v[0].median_s, 10e-6, 1e-12);
        CB_CHECK_NEAR(d.series[0].v[0].sm_clock_mhz, 1980, 0);
        CB_CHECK(strcmp(d.runs[0].driver, "580.159.04") == 0);
    }
    cb_hist_data_free(&d);
    char text[256];
    bool found;
    CB_CHECK(cb_hdb_query_text(
                 h->db, CB_STMT_ONCE,
                 "SELECT sample_times FROM cubench_result r JOIN cubench_point p ON "
                 "p.id = r.point_id WHERE p.benchmark = 'vecadd/host' AND sample_times IS NOT NULL",
                 0, NULL, text, sizeof text, &found, &err) &&
             found);
    CB_CHECK_CONTAINS(text, "0:1.02");
    CB_CHECK(cb_hdb_query_text(h->db, CB_STMT_ONCE,
                               "SELECT kind FROM cubench_point WHERE benchmark = 'vecadd/host'", 0,
                               NULL, text, sizeof text, &found, &err) &&
             strcmp(text, "host") == 0);
    cb_history_close(h);
    /* results.csv alone */
    char path[600];
    snprintf(path, sizeof path, "%s/samples.csv", a);
    CB_CHECK(unlink(path) == 0);
    s.minute = 4, s.sha = "ddd444";
    hist_write_run(a, &s);
    CB_CHECK(unlink(path) == 0);
    CB_CHECK_MSG(hist_add(url, a, &out, &err), "%s", err.text);
}

/* A killed add (SIGKILL half way through the points) leaves no trace. */
static void case_killed_add(const char *url)
{
    char a[512];
    hist_run_spec s = {6, 5, "eee555", 1.0, NULL, NULL, NULL, NULL};
    hist_run("killed", &s, a, sizeof a);
    int before_values = 0, before = hist_count_runs(url, &before_values);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("CUBENCH_HISTORY_FAULT", "kill-after-points:3", 1);
        cb_hist_added out;
        cb_msg err;
        hist_add(url, a, &out, &err);
        _exit(3); /* not reached: the hook kills the process */
    }
    int status = 0;
    CB_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CB_CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %d", status);
    int values = 0;
    CB_CHECK(hist_count_runs(url, &values) == before && values == before_values);
    cb_hist_added out;
    cb_msg err = {{0}};
    CB_CHECK_MSG(hist_add(url, a, &out, &err) && !out.already, "%s", err.text);
    CB_CHECK(hist_count_runs(url, &values) == before + 1 && values == before_values + 6);
}

/* Two processes adding overlapping runs at once: every run once. */
static void case_concurrent(const char *url)
{
    char dirs[4][512];
    for (int i = 0; i < 4; i++) {
        char name[32], sha[16];
        snprintf(name, sizeof name, "conc-%d", i);
        snprintf(sha, sizeof sha, "f%05d", i);
        hist_run_spec s = {5, 20 + i, sha, 1.0, NULL, NULL, NULL, NULL};
        hist_run(name, &s, dirs[i], sizeof dirs[i]);
    }
    int before_values = 0, before = hist_count_runs(url, &before_values);
    const int order[2][3] = {{0, 1, 2}, {2, 3, 1}};
    pid_t pids[2];
    fflush(NULL);
    for (int c = 0; c < 2; c++) {
        pids[c] = fork();
        if (pids[c] == 0) {
            bool ok = true;
            for (int round = 0; round < 3; round++)
                for (int k = 0; k < 3; k++) {
                    cb_hist_added out;
                    cb_msg err;
                    if (!hist_add(url, dirs[order[c][k]], &out, &err)) {
                        fprintf(stderr, "concurrent add: %s\n", err.text);
                        ok = false;
                    }
                }
            _exit(ok ? 0 : 1);
        }
    }
    for (int c = 0; c < 2; c++) {
        int status = 0;
        CB_CHECK(pids[c] > 0 && waitpid(pids[c], &status, 0) == pids[c]);
        CB_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d: status %d", c,
                     status);
    }
    int values = 0;
    CB_CHECK(hist_count_runs(url, &values) == before + 4 && values == before_values + 20);
}

/* A writer holding the lock: another gives up after its timeout, clearly,
 * and succeeds once the lock is free. */
static void case_locked(const char *url)
{
    char a[512];
    hist_run_spec s = {2, 30, "ggg777", 1.0, NULL, NULL, NULL, NULL};
    hist_run("locked", &s, a, sizeof a);
    cb_history *holder = hist_open(url, true, 5.0);
    cb_msg err = {{0}};
    CB_CHECK_MSG(holder && holder->db->ops->begin_write(holder->db, &err), "%s", err.text);
    cb_history *h = hist_open(url, true, 0.3);
    cb_hist_add_opts o = {NULL, false};
    cb_hist_added out;
    double t0 = cb_now_s();
    CB_CHECK(h && !cb_history_add(h, a, &o, &out, &err));
    double waited = cb_now_s() - t0;
    CB_CHECK_CONTAINS(err.text, "locked");
    CB_CHECK_MSG(waited >= 0.25 && waited < 5.0, "waited %.2f s", waited);
    cb_history_close(h);
    if (holder) CB_CHECK(holder->db->ops->exec(holder->db, "ROLLBACK", &err));
    cb_history_close(holder);
    CB_CHECK_MSG(hist_add(url, a, &out, &err), "%s", err.text);
}

/* A database of a newer schema is refused, clearly, and left as it was. */
static void case_newer_schema(const char *url)
{
    cb_history *h = hist_open(url, true, 5.0);
    cb_msg err = {{0}};
    CB_CHECK(h && h->db->ops->exec(h->db,
                                   "UPDATE cubench_meta SET value = '99' WHERE key = "
                                   "'schema_version'",
                                   &err));
    cb_history_close(h);
    cb_hist_open_opts o;
    cb_hist_open_opts_default(&o);
    for (int write = 0; write < 2; write++) {
        o.write = write;
        CB_CHECK(!cb_history_open(url, &o, &h, &err));
        CB_CHECK_CONTAINS(err.text, "schema 99, from a newer cubench");
    }
    /* put it back: through the store, not through cubench */
    cb_hdb *db = NULL;
    bool pg = strncmp(url, "postgres", 8) == 0;
    CB_CHECK(pg ? cb_hdb_pg_open(url, 5.0, &db, &err)
                : cb_hdb_sqlite_open(url, true, 5.0, &db, &err));
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE cubench_meta SET value = '%d' WHERE key = 'schema_version'",
             CB_HIST_SCHEMA);
    CB_CHECK(db && db->ops->exec(db, sql, &err));
    if (db) db->ops->close(db);
    int values;
    CB_CHECK(hist_count_runs(url, &values) > 0);
}

/* A database of schema 1 (its step alone, with rows as version 1 wrote
 * them), taken to schema 2 as a cubench of then did (kinds inferred, the
 * pageable copy stored as the host_copy that version named it), opens for
 * writing as the current schema, its rows intact, the pageable copy read as
 * staged_copy; for reading it is refused with the command that migrates
 * it. `fresh` is an empty database. */
static void case_migrate_from_v1(const char *fresh)
{
    cb_hdb *db = NULL;
    cb_msg err = {{0}};
    bool pg = strncmp(fresh, "postgres", 8) == 0;
    CB_CHECK_MSG(pg ? cb_hdb_pg_open(fresh, 5.0, &db, &err)
                    : cb_hdb_sqlite_open(fresh, true, 5.0, &db, &err),
                 "%s", err.text);
    if (!db) return;
    cb_history old = {db, 0, true};
    CB_CHECK_MSG(cb_hist_schema_migrate(&old, 0, 1, &err), "%s", err.text);
    static const char *const rows =
        "INSERT INTO cubench_machine (name) VALUES ('old/NVIDIA H200');"
        "INSERT INTO cubench_run (identity, digest, machine_id, started, git_sha, build, host,"
        " gpu_name, gpu_uuid, driver, driver_api, runtime, complete, path, added, conditions)"
        " VALUES ('id1', 'd1', 1, '2026-11-29T17:40:56Z', 'abc', 'Release;90', 'old',"
        " 'NVIDIA H200', 'GPU-x', '', '13.0', '13.0', 1, '/runs/1', '2026-11-30T00:00:00Z', '{}');"
        "INSERT INTO cubench_point (benchmark, axes) VALUES ('vecadd/grid_stride', 'n=1024');"
        "INSERT INTO cubench_point (benchmark, axes) VALUES ('vecadd/host', 'n=1024');"
        "INSERT INTO cubench_point (benchmark, axes) VALUES ('transfers/memcpy_async',"
        " 'direction=h2d;memory=pinned');"
        "INSERT INTO cubench_point (benchmark, axes) VALUES ('transfers/memcpy_async',"
        " 'direction=h2d;memory=pageable');"
        "INSERT INTO cubench_result (run_id, point_id, status, reason, timer, batch, median_s,"
        " ci_lo_s, ci_hi_s, n_samples, throttle) VALUES (1, 1, 'ok', '', 'event', 1, 4.5e-06,"
        " 4.4e-06, 4.6e-06, 100, NULL);"
        "INSERT INTO cubench_result (run_id, point_id, status, reason, timer, batch, median_s,"
        " ci_lo_s, ci_hi_s, n_samples, throttle) VALUES (1, 2, 'ok', '', 'host', 1, 2e-07,"
        " 1.9e-07, 2.1e-07, 50, NULL);"
        "INSERT INTO cubench_result (run_id, point_id, status, reason, timer, batch, median_s,"
        " ci_lo_s, ci_hi_s, n_samples, throttle) VALUES (1, 3, 'ok', '', 'event', 1, 3e-05,"
        " 2.9e-05, 3.1e-05, 50, 'sw_power_cap');"
        "INSERT INTO cubench_result (run_id, point_id, status, reason, timer, batch, median_s,"
        " ci_lo_s, ci_hi_s, n_samples, throttle) VALUES (1, 4, 'ok', '', 'event', 1, 2e-04,"
        " 1.9e-04, 2.1e-04, 20, NULL);";
    CB_CHECK_MSG(db->ops->exec(db, rows, &err), "%s", err.text);
    CB_CHECK_MSG(cb_hist_schema_migrate(&old, 1, 2, &err), "%s", err.text);
    CB_CHECK_MSG(
        db->ops->exec(db, "UPDATE cubench_point SET kind = 'host_copy' WHERE id = 4", &err), "%s",
        err.text);
    db->ops->close(db);

    cb_hist_open_opts o;
    cb_hist_open_opts_default(&o);
    cb_history *h = NULL;
    CB_CHECK(!cb_history_open(fresh, &o, &h, &err));
    CB_CHECK_CONTAINS(err.text, "cubench history migrate");
    o.write = true;
    CB_CHECK_MSG(cb_history_open(fresh, &o, &h, &err), "%s", err.text);
    if (!h) return;
    CB_CHECK(cb_history_schema_found(h) == 2);
    cb_hist_data d;
    CB_CHECK_MSG(cb_history_load(h, NULL, &d, &err), "%s", err.text);
    CB_CHECK(d.n_runs == 1 && d.n_series == 4);
    static const char *const kinds[][3] = {
        {"transfers/memcpy_async", "direction=h2d;memory=pageable", "staged_copy"},
        {"transfers/memcpy_async", "direction=h2d;memory=pinned", "host_copy"},
        {"vecadd/grid_stride", "n=1024", "device"},
        {"vecadd/host", "n=1024", "host"}};
    for (int i = 0; i < d.n_series && i < 4; i++) {
        const cb_hist_series *ser = NULL;
        for (int j = 0; j < d.n_series; j++)
            if (strcmp(d.series[j].benchmark, kinds[i][0]) == 0 &&
                strcmp(d.series[j].axes, kinds[i][1]) == 0)
                ser = &d.series[j];
        CB_CHECK_MSG(ser && strcmp(ser->kind, kinds[i][2]) == 0, "%s [%s]: %s", kinds[i][0],
                     kinds[i][1], ser ? ser->kind : "missing");
    }
    if (d.n_series == 4) { /* by benchmark, then axes */
        CB_CHECK_NEAR(d.series[2].v[0].median_s, 4.5e-6, 1e-15);
        CB_CHECK(d.series[1].v[0].throttle &&
                 strcmp(d.series[1].v[0].throttle, "sw_power_cap") == 0);
        CB_CHECK(isnan(d.series[2].v[0].sm_clock_mhz));
    }
    cb_hist_data_free(&d);
    /* and it takes new runs */
    char a[512];
    hist_run_spec s = {2, 40, "hhh888", 1.0, NULL, NULL, NULL, NULL};
    hist_run("after-migration", &s, a, sizeof a);
    cb_hist_add_opts ao = {NULL, false};
    cb_hist_added out;
    CB_CHECK_MSG(cb_history_add(h, a, &ao, &out, &err), "%s", err.text);
    cb_history_close(h);
}

/* A step in the newest runs is a regression; a driver change with a step is
 * reported as such; the spread is learned from the runs. */
static void case_check(const char *url)
{
    cb_msg err = {{0}};
    for (int r = 0; r < 14; r++) {
        char name[32], sha[16], dir[512];
        snprintf(name, sizeof name, "check-%02d", r);
        snprintf(sha, sizeof sha, "c%05d", r);
        /* a deterministic +-1% wobble; +10% from run 10 on; driver change at run 5 with +8% */
        double wobble = 1.0 + 0.01 * ((r * 7) % 5 - 2) / 2.0;
        double factor = wobble * (r >= 5 ? 1.08 : 1.0) * (r >= 10 ? 1.10 : 1.0);
        hist_run_spec s = {3,    50 + r, sha, factor, r >= 5 ? "580.200" : "580.159",
                           NULL, NULL,   NULL};
        hist_run(name, &s, dir, sizeof dir);
        cb_history *h = hist_open(url, true, 10.0);
        cb_hist_add_opts o = {"check-machine", false};
        cb_hist_added out;
        CB_CHECK_MSG(h && cb_history_add(h, dir, &o, &out, &err), "%s", err.text);
        cb_history_close(h);
    }
    cb_history *h = hist_open(url, false, 5.0);
    if (!h) return;
    cb_hist_filter f = {"check-machine", NULL, NULL, 0, NULL, NULL, NULL};
    cb_hist_data d;
    CB_CHECK_MSG(cb_history_load(h, &f, &d, &err), "%s", err.text);
    cb_hist_check_opts o;
    cb_hist_check_opts_default(&o);
    cb_hist_check c;
    CB_CHECK_MSG(cb_history_check(&d, &o, &c, &err), "%s", err.text);
    CB_CHECK(d.n_series == 3 && c.series == 3 && c.n_events == 1);
    if (c.n_events == 1) CB_CHECK_CONTAINS(c.events[0].what, "driver 580.159 -> 580.200");
    int regressions = 0, driver = 0;
    for (int i = 0; i < c.n_changes; i++) {
        const cb_hist_change *ch = &c.changes[i];
        const cb_hist_series *s = &d.series[ch->series];
        if (ch->cause == CB_HIST_CAUSE_CODE) {
            CB_CHECK(ch->regression && ch->open);
            CB_CHECK_MSG(strcmp(d.runs[s->v[ch->after].run].git_sha, "c00010") == 0 &&
                             strcmp(d.runs[s->v[ch->before].run].git_sha, "c00009") == 0,
                         "%s..%s", d.runs[s->v[ch->before].run].git_sha,
                         d.runs[s->v[ch->after].run].git_sha);
            CB_CHECK_MSG(ch->ratio > 1.08 && ch->ratio < 1.12, "%g", ch->ratio);
            regressions++;
        } else {
            CB_CHECK(ch->cause == CB_HIST_CAUSE_DRIVER && !ch->regression);
            CB_CHECK(strcmp(d.runs[ch->run].git_sha, "c00005") == 0);
            driver++;
        }
    }
    CB_CHECK_MSG(regressions == 3 && driver == 3 && c.regressions == 3, "%d %d %d", regressions,
                 driver, c.regressions);
    /* the spread: about the 1% wobble's (sd 0.71% of the +-1% cycle) */
    cb_hist_spread sp;
    CB_CHECK_MSG(cb_history_point_spread(h, "check-machine", "vecadd/float4_per_thread",
                                         "n=1024;block=256", NULL, &sp, &err),
                 "%s", err.text);
    CB_CHECK_MSG(sp.runs == 14 && sp.df >= 10 && sp.sd > 0.004 && sp.sd < 0.012, "%d %g %g",
                 sp.runs, sp.df, sp.sd);
    cb_hist_check_free(&c);
    cb_hist_data_free(&d);
    cb_history_close(h);
}

/* Two runs of one build begun in the same second by different commands
 * are two runs; the same command with other numbers is still refused; and
 * a run stored under the identity without the command line (what earlier
 * versions wrote) is found as stored when it is added again. */
static void case_same_second(const char *url)
{
    char one[512], two[512], again[512], legacy[512];
    int before = 0, values = 0, after = 0;
    before = hist_count_runs(url, &values);
    hist_run_spec s = {3, 9, "kkk000", 1.0, NULL, NULL, NULL, "vecadd/*"};
    hist_run("second-1", &s, one, sizeof one);
    s.command = "transfers/*", s.factor = 1.3;
    hist_run("second-2", &s, two, sizeof two);
    cb_hist_added out;
    cb_msg err = {{0}};
    CB_CHECK_MSG(hist_add(url, one, &out, &err) && !out.already, "%s", err.text);
    const long long first_id = out.run_id;
    CB_CHECK_MSG(hist_add(url, two, &out, &err) && !out.already, "%s", err.text);
    CB_CHECK(out.run_id != first_id);
    after = hist_count_runs(url, &values);
    CB_CHECK_MSG(after == before + 2, "%d runs after, %d before", after, before);
    CB_CHECK(hist_add(url, two, &out, &err) && out.already);
    s.factor = 1.6; /* the second command's run changed after it was added */
    hist_run("second-2-other", &s, again, sizeof again);
    CB_CHECK(!hist_add(url, again, &out, &err));
    CB_CHECK_CONTAINS(err.text, "same identity");
    /* stored without a command line, then found with one */
    hist_run_spec l = {2, 8, "lll000", 1.0, NULL, NULL, NULL, NULL};
    hist_run("legacy", &l, legacy, sizeof legacy);
    CB_CHECK_MSG(hist_add(url, legacy, &out, &err) && !out.already, "%s", err.text);
    const long long legacy_id = out.run_id;
    l.command = "vecadd/*";
    hist_run("legacy", &l, legacy, sizeof legacy);
    CB_CHECK_MSG(hist_add(url, legacy, &out, &err), "%s", err.text);
    CB_CHECK(out.already && out.run_id == legacy_id);
    CB_CHECK(hist_count_runs(url, &values) == before + 3);
}

/* Every case against one database, `fresh` an empty second one. */
static void hist_run_cases(const char *url, const char *fresh)
{
    case_add_idempotent(url);
    case_contents(url);
    case_killed_add(url);
    case_concurrent(url);
    case_locked(url);
    case_newer_schema(url);
    case_migrate_from_v1(fresh);
    case_check(url);
    case_same_second(url);
}

#endif
