/* fit.h - latency/bandwidth fits of size sweeps.
 *
 * A transfer of x bytes costs t = alpha + x / beta (Hockney's model): alpha
 * is the fixed cost of one call (launch, driver, DMA setup, PCIe round
 * trip), beta the bandwidth the copy tends to when large. cb_fits_write
 * fits it to every curve of a run (docs/schema.md documents fits.csv). */
#ifndef CB_FIT_H
#define CB_FIT_H

#include "results.h"

typedef struct cb_fit {
    int points;         /* points used                                      */
    double alpha_s;     /* intercept, seconds; may be < 0 when the model is poor */
    double beta_bps;    /* bytes per second; NAN when the slope is not > 0  */
    double r2;          /* weighted coefficient of determination             */
    double max_rel_err; /* max |t - fit| / t over the points                 */
} cb_fit;

/* Weighted least squares of t = alpha + x / beta with weights 1 / t^2, i.e.
 * minimising the squared relative error, so that the small sizes (which
 * set alpha) count as much as the large ones (which set beta). Points with
 * x or t not finite and positive are ignored. False when fewer than three
 * points with at least three distinct sizes remain (no fit to speak of). */
bool cb_fit_latency_bandwidth(const double *x, const double *t, int n, cb_fit *out);

/* Write `dir`/fits.csv (one row per curve with a fit) from the rows of a run.
 * A curve is a benchmark with an axis named `bytes` at fixed values of its
 * other axes; rows with status skip or fail are left out. A file is only
 * written when it has a row to hold. Each file is written to a temporary
 * name and renamed, so it can be called after every point: cheap (sorting
 * n rows) and idempotent. CB_FAIL with the reason when the file cannot be
 * written: the caller stops the run as for any write error. */
cb_status cb_fits_write(const char *dir, const cb_result *rows, int n, cb_msg *why);

#endif
