/* fleet_judge.h - group the runs by model, choose each figure's reference
 * point, set every run against the others there, and collect the problems
 * (the rules are in fleet_model.h). */
#ifndef CB_FLEET_JUDGE_H
#define CB_FLEET_JUDGE_H

#include "fleet_model.h"

/* Judge a loaded fleet whose figures are collected (fleet_figures.h).
 * False with `err` set when out of memory. */
bool cb_fleet_judge(cb_fleet *f, const cb_fleet_opts *o, cb_msg *err);

#endif
