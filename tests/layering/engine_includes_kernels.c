/* The engine including a kernel header: must NOT compile. */
#include "vecadd_kernels.h"
