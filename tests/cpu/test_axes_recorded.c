/* test_axes_recorded.c - every identity cubench has written can be typed
 * back: each `name=value` of every `axes` cell in the recorded runs
 * (tests/data/ * /results.csv) goes through the axis grammar of its
 * benchmark's axis and must give exactly that one value, with the same
 * canonical text. Also the extremes the grammar can write (2^62, words). */
/* test links: cubench_bench */
#include "axis.h"
#include "cb_test.h"
#include "csv_reader.h"
#include "families.h"
#include "registry.h"

#include <dirent.h>
#include <stdlib.h>

static int n_cells, n_values;

static const cb_axis_def *find_axis(const cb_bench *b, const char *name, size_t len)
{
    for (int a = 0; a < b->n_axes; a++)
        if (strlen(b->axes[a].name) == len && strncmp(b->axes[a].name, name, len) == 0)
            return &b->axes[a];
    return NULL;
}

/* One `name=value` of bench `b` parses back to itself. */
static void check_pair(const cb_bench *b, const char *pair, size_t len, const char *where)
{
    const char *eq = memchr(pair, '=', len);
    CB_CHECK(eq != NULL);
    if (!eq) return;
    const cb_axis_def *def = find_axis(b, pair, (size_t)(eq - pair));
    CB_CHECK(def != NULL);
    if (!def) {
        fprintf(stderr, "  %s: %s has no axis '%.*s'\n", where, b->name, (int)(eq - pair), pair);
        return;
    }
    char value[64];
    snprintf(value, sizeof value, "%.*s", (int)(len - (size_t)(eq + 1 - pair)), eq + 1);
    /* Any SM count: a written value is already resolved. */
    const cb_axis_context ctx = {.sm_count = 132};
    static cb_axis_values v;
    cb_msg err = {{0}};
    bool ok = cb_axis_expand(def, value, &ctx, &v, &err);
    CB_CHECK(ok && v.count == 1);
    if (!ok || v.count != 1) {
        fprintf(stderr, "  %s: %s %s=%s: %s\n", where, b->name, def->name, value, err.text);
        return;
    }
    CB_CHECK_STR(v.v[0].text, value);
    n_values++;
}

static void check_cell(const cb_bench *b, const char *axes, const char *where)
{
    n_cells++;
    const char *p = axes;
    while (*p) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        check_pair(b, p, len, where);
        p += len;
        if (*p == ';') p++;
    }
}

/* A run made by `python -m cubench` (python.json beside results.csv) holds
 * rows of Python families, whose axes the C registry does not know; its C
 * rows are checked, the others counted as left out. */
static int n_python_rows;

static void check_file(const char *path, bool python_run)
{
    cb_msg err = {{0}};
    cb_csv *csv = cb_csv_read_file(path, &err);
    CB_CHECK(csv != NULL);
    if (!csv) {
        fprintf(stderr, "  %s\n", err.text);
        return;
    }
    int bench_col = cb_csv_col(csv, "benchmark"), axes_col = cb_csv_col(csv, "axes");
    CB_CHECK(bench_col >= 0 && axes_col >= 0);
    for (int r = 0; bench_col >= 0 && axes_col >= 0 && r < cb_csv_rows(csv); r++) {
        const char *name = cb_csv_get(csv, r, bench_col);
        const cb_bench *b = cb_registry_find(name);
        char where[1100];
        snprintf(where, sizeof where, "%s:%ld", path, cb_csv_line(csv, r));
        if (!b && python_run) {
            n_python_rows++;
            continue;
        }
        CB_CHECK(b != NULL);
        if (!b) {
            fprintf(stderr, "  %s: no benchmark '%s'\n", where, name);
            continue;
        }
        check_cell(b, cb_csv_get(csv, r, axes_col), where);
    }
    cb_csv_free(csv);
}

/* Values at the edges of what the grammar writes. */
static void check_written_extremes(void)
{
    const cb_bench *host = cb_registry_find("vecadd/host");
    CB_CHECK(host != NULL);
    if (!host) return;
    check_cell(host, "n=4611686018427387904;threads=all", "extremes");
    check_cell(host, "n=1;threads=256", "extremes");
}

int main(void)
{
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);
    DIR *d = opendir(CB_TEST_DATA_DIR);
    CB_CHECK(d != NULL);
    int files = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s/results.csv", CB_TEST_DATA_DIR, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        fclose(f);
        char py[1024];
        snprintf(py, sizeof py, "%s/%s/python.json", CB_TEST_DATA_DIR, e->d_name);
        FILE *pf = fopen(py, "r");
        if (pf) fclose(pf);
        check_file(path, pf != NULL);
        files++;
    }
    if (d) closedir(d);
    check_written_extremes();
    /* The recorded runs are there and hold real cells (23 runs today). */
    CB_CHECK(files >= 10);
    CB_CHECK(n_values > 1000);
    printf("test_axes_recorded: %d files, %d axes cells, %d values parsed back (%d rows of Python "
           "families left out)\n",
           files, n_cells, n_values, n_python_rows);
    return cb_test_finish("test_axes_recorded");
}
