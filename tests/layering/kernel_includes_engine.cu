/* A kernel that reaches into the engine: must NOT compile (kernels/ include
 * nothing of ours but their own headers). */
#include "runner.h"
