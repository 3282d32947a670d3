/* test_noisy_account.c - the end of a run says why its noisy rows are
 * noisy: each row goes to the first class it fits (a GPU that reported a
 * slowdown, then the kind of point, then device points by length), ok rows
 * are not counted, and a run without noisy rows prints nothing. */
/* test links: cubench_engine */
#include "cb_test.h"
#include "noisy_account.h"

#include <string.h>

static cb_result row(cb_status status, cb_point_kind kind, double median_s, const char *throttle)
{
    cb_result r;
    memset(&r, 0, sizeof r);
    r.status = status;
    r.kind = kind;
    r.summary.median = median_s;
    if (throttle) {
        r.telemetry.valid = true;
        snprintf(r.telemetry.throttle, sizeof r.telemetry.throttle, "%s", throttle);
    }
    return r;
}

int main(void)
{
    cb_result rows[] = {
        row(CB_NOISY, CB_KIND_DEVICE, 3e-3, "sw_power_cap"),
        row(CB_NOISY, CB_KIND_DEVICE, 4e-6, "none"),
        row(CB_NOISY, CB_KIND_DEVICE, 5e-6, NULL),
        row(CB_NOISY, CB_KIND_DEVICE, 2e-3, "none"),
        row(CB_NOISY, CB_KIND_HOST_COPY, 0.15, NULL),
        row(CB_NOISY, CB_KIND_HOST, 5e-3, NULL),
        row(CB_NOISY, CB_KIND_PYTHON, 1e-5, NULL),
        row(CB_OK, CB_KIND_DEVICE, 3e-3, "sw_power_cap"),
        row(CB_OK, CB_KIND_HOST_COPY, 0.1, NULL),
    };
    CB_CHECK_EQ_INT(cb_noisy_class_of(&rows[0]), CB_NOISY_THROTTLED);
    CB_CHECK_EQ_INT(cb_noisy_class_of(&rows[1]), CB_NOISY_SHORT);
    CB_CHECK_EQ_INT(cb_noisy_class_of(&rows[3]), CB_NOISY_OTHER);
    CB_CHECK_EQ_INT(cb_noisy_class_of(&rows[6]), CB_NOISY_PYTHON); /* short, but Python */
    char text[512];
    cb_noisy_account(rows, (int)(sizeof rows / sizeof rows[0]), text, sizeof text);
    CB_CHECK_STR(text, "noisy rows by kind: 1 throttled (power, thermal or hardware slowdown), 1 "
                       "copies through host memory, 1 CPU baselines, 1 Python framework calls, 2 "
                       "device points under 20 us, 1 other device points");
    cb_noisy_account(rows + 7, 2, text, sizeof text); /* ok rows only */
    CB_CHECK_STR(text, "");
    char small[24];
    cb_noisy_account(rows, 3, small, sizeof small); /* cut, still a string */
    CB_CHECK(strlen(small) < sizeof small);
    return cb_test_finish("test_noisy_account");
}
