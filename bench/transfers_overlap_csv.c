/* transfers_overlap_csv.c - the family's own output: overlap.csv, one row
 * per transfers/overlap configuration, modelling how much of the serial
 * H2D + kernel + D2H time the chunked pipeline hides (docs/schema.md).
 * The engine calls it through the family's write_outputs hook. */
#include "csv_writer.h"
#include "row_groups.h"
#include "transfers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* `order` leads the struct, as the engine's sort of outputs expects. */
static int cmp_out_order(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

enum { ST_H2D, ST_KERNEL, ST_D2H, ST_PIPELINE, ST_COUNT };
static const char *const stage_words[ST_COUNT] = {"h2d", "kernel", "d2h", "pipeline"};

typedef struct overlap_out {
    int order;
    const char *bench;
    const char *point; /* axes without stage */
    char bytes[32], streams[32];
    char base[CB_POINT_TEXT]; /* point without streams: what speedup compares */
    double t[ST_COUNT];
    double speedup;
} overlap_out;

typedef struct overlap_table {
    const overlap_out *rows;
    int n;
} overlap_table;

static void write_overlap(FILE *f, const void *ctx)
{
    const overlap_table *tab = ctx;
    fputs("benchmark,point,bytes,streams,h2d_s,kernel_s,d2h_s,pipeline_s,serial_s,ideal_s,"
          "efficiency,hidden_fraction,speedup_vs_1_stream\n",
          f);
    for (int i = 0; i < tab->n; i++) {
        const overlap_out *o = &tab->rows[i];
        /* NAN propagates: a missing stage leaves the derived fields empty. */
        double serial = o->t[ST_H2D] + o->t[ST_KERNEL] + o->t[ST_D2H];
        double ideal = fmax(o->t[ST_H2D], fmax(o->t[ST_KERNEL], o->t[ST_D2H]));
        if (isnan(o->t[ST_H2D]) || isnan(o->t[ST_KERNEL]) || isnan(o->t[ST_D2H])) ideal = NAN;
        double pipe = o->t[ST_PIPELINE];
        cb_csv_row row;
        cb_csv_begin(&row, f);
        cb_csv_str(&row, o->bench);
        cb_csv_str(&row, o->point);
        cb_csv_str(&row, o->bytes);
        cb_csv_str(&row, o->streams);
        for (int s = 0; s < ST_COUNT; s++)
            cb_csv_num(&row, o->t[s]);
        cb_csv_num(&row, serial);
        cb_csv_num(&row, ideal);
        cb_csv_num(&row, ideal / pipe);
        cb_csv_num(&row, serial > ideal ? (serial - pipe) / (serial - ideal) : NAN);
        cb_csv_num(&row, o->speedup);
        cb_csv_end(&row);
    }
}

static int stage_of(const cb_result *r)
{
    char word[32];
    if (!cb_axes_value(r->axes, "stage", word, sizeof word)) return -1;
    for (int s = 0; s < ST_COUNT; s++)
        if (strcmp(word, stage_words[s]) == 0) return s;
    return -1;
}

cb_status cb_xfer_write_overlap_csv(const char *dir, const cb_result *rows, int n, cb_msg *why)
{
    if (!dir || !rows || n <= 0) return CB_OK;
    cb_curve_row *cr = malloc(sizeof *cr * (size_t)n);
    if (!cr) {
        cb_msg_set(why, "out of memory writing overlap.csv");
        return CB_FAIL;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        const cb_result *r = &rows[i];
        int stage = cb_result_timed(r) ? stage_of(r) : -1;
        if (stage < 0) continue;
        cb_curve_row *c = &cr[m++];
        c->r = r;
        c->order = i;
        cb_axes_without(r->axes, "stage", c->key, sizeof c->key);
        c->x = stage;
        c->t = r->summary.median;
    }
    if (m == 0) {
        free(cr);
        return CB_OK;
    }
    cb_curve_rows_sort(cr, m);

    overlap_out *outs = malloc(sizeof *outs * (size_t)m);
    if (!outs) {
        free(cr);
        cb_msg_set(why, "out of memory writing overlap.csv");
        return CB_FAIL;
    }
    int n_out = 0;
    for (int g = 0; g < m;) {
        int e = g;
        while (e < m && cb_curve_rows_same(&cr[g], &cr[e]))
            e++;
        overlap_out *o = &outs[n_out++];
        o->order = cr[g].order;
        o->bench = cr[g].r->bench->name;
        o->point = cr[g].key;
        if (!cb_axes_value(o->point, "bytes", o->bytes, sizeof o->bytes)) o->bytes[0] = '\0';
        if (!cb_axes_value(o->point, "streams", o->streams, sizeof o->streams))
            o->streams[0] = '\0';
        cb_axes_without(o->point, "streams", o->base, sizeof o->base);
        for (int s = 0; s < ST_COUNT; s++)
            o->t[s] = NAN;
        for (int k = g; k < e; k++)
            o->t[(int)cr[k].x] = cr[k].t; /* the latest row wins */
        g = e;
    }
    for (int i = 0; i < n_out; i++) {
        outs[i].speedup = NAN;
        for (int j = 0; j < n_out; j++) {
            if (strcmp(outs[j].streams, "1") == 0 && strcmp(outs[j].bench, outs[i].bench) == 0 &&
                strcmp(outs[j].base, outs[i].base) == 0)
                outs[i].speedup = outs[j].t[ST_PIPELINE] / outs[i].t[ST_PIPELINE];
        }
    }
    qsort(outs, (size_t)n_out, sizeof *outs, cmp_out_order);
    overlap_table tab = {outs, n_out};
    cb_status st = cb_write_atomically(dir, "overlap.csv", write_overlap, &tab, why);
    free(outs);
    free(cr);
    return st;
}
