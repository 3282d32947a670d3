/* fleet_figures.h - the key figures of a fleet: declared by the runs' rows
 * (results.csv `key_figure`, `key_rule`, schema 3), never named here.
 *
 * Runs recorded before the families declared figures (no `key_figure`
 * column, or a run none of whose rows names one) are judged by a map the
 * user gives (`cubench fleet --key-figures FILE`): the figures the families
 * stood for then, kept beside the families (bench/legacy_key_figures.csv),
 * not in the judge. The map is CSV with the columns
 *   key_figure,key_rule,kind,benchmark,where
 * and its first line that matches a row decides: `benchmark` a shell glob
 * of the benchmark name (fnmatch), `where` axis=value entries joined by ';'
 * that must all hold (empty: any point); `key_figure` empty means "no
 * figure"; `kind` (optional) is the row's kind where the run does not say
 * it (compare_kind.h), which decides whether a figure is a CPU one.
 *
 * A figure's unit: TFLOP/s when every candidate's work model counts more
 * flops than bytes (a compute-bound kernel: a GEMM does 2mnk flops on about
 * 12mn bytes), else GB/s (bytes / time; vector add counts 12 bytes and one
 * flop per element). */
#ifndef CB_FLEET_FIGURES_H
#define CB_FLEET_FIGURES_H

#include "fleet_model.h"

/* Give the rows of every complete run that declares no key figure the
 * figure, rule and (undeclared) kind of the map at `path`. False with `err`
 * set for a map that cannot be read or has a line that is not one. */
bool cb_fleet_apply_map(cb_fleet *f, const char *path, cb_msg *err);

/* Collect the figures the complete runs' timed rows declare (in order of
 * first appearance), and count the complete runs that declare none. False
 * with `err` set when out of memory. */
bool cb_fleet_collect_figures(cb_fleet *f, cb_msg *err);

/* The figure's work of a point in its unit (bytes / 1e9 or flops / 1e12),
 * or 0 without one. */
double cb_fleet_work(const cb_fleet_figure *fig, const cb_cmp_point *p);

#endif
