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

enum { ST_H2D, ST_KERNEL, ST_D2H, ST_PIPELINE, ST_COUNT };
static const char *const stage_words[ST_COUNT] = {"h2d", "kernel", "d2h", "pipeline"};

typedef struct overlap_out {
    int order; /* leads, for cb_cmp_leading_order */
    const char *bench;
    const char *point; /* axes without stage */
    char bytes[32], streams[32];
    char base[CB_POINT_TEXT]; /* point without streams: what speedup compares */
    double t[ST_COUNT];
    double speedup;
} overlap_out;

static void write_overlap_row(cb_csv_row *row, const void *item)
{
    const overlap_out *o = item;
    /* NAN propagates: a missing stage leaves the derived fields empty. */
    double serial = o->t[ST_H2D] + o->t[ST_KERNEL] + o->t[ST_D2H];
    double ideal = fmax(o->t[ST_H2D], fmax(o->t[ST_KERNEL], o->t[ST_D2H]));
    if (isnan(o->t[ST_H2D]) || isnan(o->t[ST_KERNEL]) || isnan(o->t[ST_D2H])) ideal = NAN;
    double pipe = o->t[ST_PIPELINE];
    cb_csv_str(row, o->bench);
    cb_csv_str(row, o->point);
    cb_csv_str(row, o->bytes);
    cb_csv_str(row, o->streams);
    for (int s = 0; s < ST_COUNT; s++)
        cb_csv_num(row, o->t[s]);
    cb_csv_num(row, serial);
    cb_csv_num(row, ideal);
    cb_csv_num(row, ideal / pipe);
    cb_csv_num(row, serial > ideal ? (serial - pipe) / (serial - ideal) : NAN);
    cb_csv_num(row, o->speedup);
}

/* overlap.csv: one row per configuration, the stages and what the pipeline hid. */
static const cb_csv_layout overlap_csv = {
    .header = "benchmark,point,bytes,streams,h2d_s,kernel_s,d2h_s,pipeline_s,serial_s,ideal_s,"
              "efficiency,hidden_fraction,speedup_vs_1_stream",
    .item_size = sizeof(overlap_out),
    .row = write_overlap_row,
};

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
    qsort(outs, (size_t)n_out, sizeof *outs, cb_cmp_leading_order);
    cb_status st = cb_write_csv_table(dir, "overlap.csv", &overlap_csv, outs, n_out, why);
    free(outs);
    free(cr);
    return st;
}
