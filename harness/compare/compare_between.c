/* compare_between.c - the built-in between-run spread by time scale. */
#include "compare_between.h"

double cb_between_run_default(double median_s)
{
    if (!(median_s >= CB_BETWEEN_SHORT_S)) return CB_BETWEEN_SHORT_SD; /* NaN: the widest */
    if (median_s < CB_BETWEEN_MID_S) return CB_BETWEEN_MID_SD;
    return CB_BETWEEN_LONG_SD;
}
