/* The descriptors' layer reaching up into the runner: must NOT compile
 * (harness/core sits below harness/run). */
#include "runner.h"
