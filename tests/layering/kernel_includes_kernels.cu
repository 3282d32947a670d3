/* The control: a kernel source including a kernels/ header compiles. */
#include "vecadd.h"
