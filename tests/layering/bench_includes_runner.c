/* A family reaching the runner: must NOT compile (families see the
 * descriptors and the toolkit; the runner owns timing). */
#include "runner.h"
