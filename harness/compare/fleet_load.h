/* fleet_load.h - a fleet directory into runs and task records
 * (fleet_model.h says what they are). Runs are read by compare's loader; a
 * run that did not finish is not parsed (a task killed mid-write may leave a
 * truncated last line, and the report only needs to say that the run is
 * incomplete). Task records are read from DIR/_fleet/ (fleet_tasks.c). */
#ifndef CB_FLEET_LOAD_H
#define CB_FLEET_LOAD_H

#include "fleet_model.h"

/* Read DIR. False with `err` set when DIR is missing or not a directory,
 * holds neither a run nor a task record, is itself a run directory, a
 * complete run's files are unreadable or malformed, or a task record is
 * malformed (fleet_tasks.c). Incomplete runs (no meta.json, "complete":
 * false) are kept, unread, with a detail line. */
bool cb_fleet_load(cb_fleet *f, const char *dir, cb_msg *err);

/* Read DIR/_fleet/: `expected` and the task-ID.csv records; the expected
 * tasks without a record become gaps. False with `err` set for a record
 * that is not one: no `task`/`state` column, not exactly one row, a task id
 * that is not a whole number in [0, 4000000], a record whose id is not its
 * file name's (two records of one task), or an `expected` that is not a
 * task count. */
bool cb_fleet_read_tasks(cb_fleet *f, const char *dir, cb_msg *err);

/* The directory named like the last component of `run_dir`, or -1. */
int cb_fleet_find_dir(const cb_fleet *f, const char *run_dir);

#endif
