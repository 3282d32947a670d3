/* The control: a kernel source including a kernels/ header compiles. */
#include "vecadd_kernels.h"
