/* test_history_sqlite.c - the history store against SQLite, the default
 * backend (tests/cpu/test_history_cases.h has the cases), and what only a
 * file can get wrong: a missing file opened for reading, a file that is
 * not SQLite, a SQLite file of somebody else's. */
/* test links: cubench_compare */
#include "test_history_cases.h"

#include <stdlib.h>

static void case_not_a_history(void)
{
    char path[512];
    cb_hist_open_opts o;
    cb_hist_open_opts_default(&o);
    cb_history *h = NULL;
    cb_msg err = {{0}};
    snprintf(path, sizeof path, "%s/missing.db", hist_tmp);
    CB_CHECK(!cb_history_open(path, &o, &h, &err));
    CB_CHECK_CONTAINS(err.text, "no history database there");
    snprintf(path, sizeof path, "%s/text.db", hist_tmp);
    CB_CHECK(cb_test_write_text(path, "this is a text file, long enough to have a header page\n"));
    o.write = true;
    CB_CHECK(!cb_history_open(path, &o, &h, &err));
    CB_CHECK_CONTAINS(err.text, "not a SQLite database");
    /* a SQLite file with a table of its own */
    snprintf(path, sizeof path, "%s/other.db", hist_tmp);
    cb_hdb *db = NULL;
    CB_CHECK(cb_hdb_sqlite_open(path, true, 1.0, &db, &err));
    CB_CHECK(db && db->ops->exec(db, "CREATE TABLE accounts (id INTEGER)", &err));
    if (db) db->ops->close(db);
    CB_CHECK(!cb_history_open(path, &o, &h, &err));
    CB_CHECK_CONTAINS(err.text, "not a cubench history");
    CB_CHECK_CONTAINS(err.text, "holds other tables");
}

int main(void)
{
    snprintf(hist_tmp, sizeof hist_tmp, "/tmp/cb_test_history_sqlite.XXXXXX");
    if (!mkdtemp(hist_tmp)) {
        perror("mkdtemp");
        return 1;
    }
    char url[600], fresh[600];
    snprintf(url, sizeof url, "%s/history.db", hist_tmp);
    snprintf(fresh, sizeof fresh, "sqlite:%s/fresh.db", hist_tmp);
    hist_run_cases(url, fresh + 7);
    case_not_a_history();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", hist_tmp);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", hist_tmp);
    return cb_test_finish("test_history_sqlite");
}
