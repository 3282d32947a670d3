/* The judge including the engine: must NOT compile. */
#include "runner.h"
