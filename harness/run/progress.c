/* progress.c - "[ 12/240] vecadd/grid_stride n=...  ok 3812 GB/s  ETA 0:35" */
#include "progress.h"

#include "telemetry_reasons.h"

#include <math.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

void cb_progress_begin(cb_progress *p, int total, bool quiet)
{
    p->total = total;
    p->started_s = cb_now_s();
    p->tty = isatty(fileno(stderr));
    p->quiet = quiet;
}

static void format_eta(double s, char *buf, size_t len)
{
    if (!isfinite(s) || s < 0) {
        snprintf(buf, len, "?");
        return;
    }
    int t = (int)(s + 0.5);
    snprintf(buf, len, "%d:%02d", t / 60, t % 60);
}

void cb_progress_point(cb_progress *p, int index, const char *bench, const char *axes)
{
    if (p->quiet || !p->tty) return;
    fprintf(stderr, "\r\033[K[%*d/%d] %s %s ...", p->total >= 1000 ? 4 : 3, index + 1, p->total,
            bench, axes);
    fflush(stderr);
}

/* The headline figure: TFLOP/s for arithmetic-heavy work (an FP32 peak, or
 * at least one flop per byte), GB/s for data movement, else the median
 * time; "" for a point without samples. */
static void headline_figure(const cb_result *r, char *figure, size_t len)
{
    figure[0] = '\0';
    if (r->summary.n <= 0) return;
    bool compute = r->bench->peak == CB_PEAK_FP32 ||
                   (isfinite(r->flops) && isfinite(r->bytes) && r->flops >= r->bytes);
    if (compute && isfinite(r->tflops))
        snprintf(figure, len, "%.3g TFLOP/s", r->tflops);
    else if (isfinite(r->gbps))
        snprintf(figure, len, "%.4g GB/s", r->gbps);
    else
        snprintf(figure, len, "%.4g us", r->summary.median * 1e6);
}

void cb_progress_done(cb_progress *p, int index, const cb_result *r)
{
    if (p->quiet) return;
    double elapsed = cb_now_s() - p->started_s;
    double eta = elapsed / (index + 1) * (p->total - index - 1);
    char eta_text[16], figure[64];
    format_eta(eta, eta_text, sizeof eta_text);
    headline_figure(r, figure, sizeof figure);
    /* A throttled point, or one whose SM clock moved, says so; on a
     * terminal its line stays (like a point that is not ok). */
    char flag[160];
    bool flagged = cb_telemetry_flag(&r->telemetry, flag, sizeof flag);
    fprintf(stderr, "%s[%*d/%d] %s %s  %s %s%s%s%s%s%s  ETA %s%s", p->tty ? "\r\033[K" : "",
            p->total >= 1000 ? 4 : 3, index + 1, p->total, r->bench->name, r->axes,
            cb_status_name(r->status), figure, r->reason[0] ? "  " : "", r->reason,
            flagged ? "  [" : "", flagged ? flag : "", flagged ? "]" : "", eta_text,
            p->tty && r->status == CB_OK && !flagged ? "" : "\n");
    fflush(stderr);
}

void cb_progress_end(cb_progress *p)
{
    if (p->quiet) return;
    if (p->tty) fprintf(stderr, "\r\033[K");
    fprintf(stderr, "%d points in %.1f s\n", p->total, cb_now_s() - p->started_s);
}
