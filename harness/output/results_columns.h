/* results_columns.h - results.csv as one table: each column's name beside
 * the function that writes its cell, so a name and its value cannot drift
 * apart, and a new column is one line (docs/schema.md documents each). */
#ifndef CB_RESULTS_COLUMNS_H
#define CB_RESULTS_COLUMNS_H

#include "csv_writer.h"
#include "results.h"

typedef struct cb_results_column {
    const char *name;
    void (*write)(cb_csv_row *row, const cb_result *r);
} cb_results_column;

extern const cb_results_column cb_results_table[];
extern const int cb_results_column_count;

#endif
