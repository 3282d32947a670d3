/* test_history_postgres.c - the history store against a real PostgreSQL
 * server (tests/cpu/test_history_cases.h has the cases; the same as SQLite's),
 * started here from the distribution's packages by tests/history/
 * pg_server.sh in a temporary directory (Unix socket only) and stopped at
 * the end, or by its watchdog if this process dies first. Also: an
 * unreachable server is a clear error.
 *
 * Skips (exit 77) only where the server binaries or libpq are missing;
 * with CUBENCH_REQUIRE_POSTGRESQL=1 (scripts/test.sh, so CI) that is a
 * failure instead. About 5 s, most of it initdb. */
/* test links: cubench_compare */
#include "test_history_cases.h"

#include <stdlib.h>

static char server_dir[256];

static void stop_server(void)
{
    if (!server_dir[0]) return;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "'%s/tests/history/pg_server.sh' stop '%s'", CB_SOURCE_DIR,
             server_dir);
    if (system(cmd) != 0) fprintf(stderr, "stopping the server in %s failed\n", server_dir);
    server_dir[0] = '\0';
}

static int skip_or_fail(const char *why)
{
    const char *require = getenv("CUBENCH_REQUIRE_POSTGRESQL");
    if (require && strcmp(require, "1") == 0) {
        fprintf(stderr, "test_history_postgres: FAILED: %s (CUBENCH_REQUIRE_POSTGRESQL=1)\n", why);
        return 1;
    }
    fprintf(stderr, "test_history_postgres: skipped: %s\n", why);
    return 77;
}

/* Start the server; its URI into `uri`. 0, or the exit code to return. */
static int start_server(char *uri, size_t len)
{
    snprintf(server_dir, sizeof server_dir, "/tmp/cbpg.XXXXXX");
    if (!mkdtemp(server_dir)) {
        perror("mkdtemp");
        return 1;
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "'%s/tests/history/pg_server.sh' start '%s' %ld", CB_SOURCE_DIR,
             server_dir, (long)getpid());
    FILE *p = popen(cmd, "r");
    bool got = p && fgets(uri, (int)len, p) != NULL;
    int status = p ? pclose(p) : -1;
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (rc == 77 || rc != 0 || !got) {
        rmdir(server_dir); /* pg_server.sh removes what it made on failure */
        server_dir[0] = '\0';
        return rc == 77 ? skip_or_fail("the PostgreSQL server binaries are not installed")
                        : (fprintf(stderr, "test_history_postgres: the server did not start\n"), 1);
    }
    uri[strcspn(uri, "\n")] = '\0';
    atexit(stop_server);
    return 0;
}

static void case_unreachable(void)
{
    cb_hist_open_opts o;
    cb_hist_open_opts_default(&o);
    o.write = true;
    cb_history *h = NULL;
    cb_msg err = {{0}};
    char url[512];
    snprintf(url, sizeof url, "postgresql://cubench:secret@/postgres?host=%s/no-such-dir",
             hist_tmp);
    CB_CHECK(!cb_history_open(url, &o, &h, &err));
    CB_CHECK_CONTAINS(err.text, "cannot connect");
    CB_CHECK_MSG(!strstr(err.text, "secret"), "the password is shown: %s", err.text);
}

int main(void)
{
    if (!cb_history_has_postgresql())
        return skip_or_fail("this build has no libpq (install libpq-dev and reconfigure)");
    char uri[512];
    int rc = start_server(uri, sizeof uri);
    if (rc) return rc;
    snprintf(hist_tmp, sizeof hist_tmp, "/tmp/cb_test_history_pg.XXXXXX");
    if (!mkdtemp(hist_tmp)) {
        perror("mkdtemp");
        return 1;
    }
    /* a second, empty database for the migration case */
    cb_hdb *db = NULL;
    cb_msg err = {{0}};
    CB_CHECK_MSG(cb_hdb_pg_open(uri, 5.0, &db, &err), "%s", err.text);
    CB_CHECK(db && db->ops->exec(db, "CREATE DATABASE fresh", &err));
    if (db) db->ops->close(db);
    /* the same server, database `fresh`: ".../postgres?host=..." -> ".../fresh?host=..." */
    char fresh[600];
    const char *db_name = strstr(uri, "/postgres?");
    CB_CHECK(db_name != NULL);
    if (!db_name) return cb_test_finish("test_history_postgres");
    snprintf(fresh, sizeof fresh, "%.*s/fresh%s", (int)(db_name - uri), uri, db_name + 9);
    hist_run_cases(uri, fresh);
    case_unreachable();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", hist_tmp);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", hist_tmp);
    stop_server();
    return cb_test_finish("test_history_postgres");
}
