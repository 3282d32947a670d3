/* Planted for the include scan: both lines must be reported. A relative
 * path and a sub-folder path reach headers the build does not export. */
#include "../../harness/run/runner.h"
#include "detail/progress.h"
