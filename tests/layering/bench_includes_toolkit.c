/* The control: a family including the descriptors and the toolkit compiles. */
#include "mem_budget.h"
#include "registry.h"
#include "row_groups.h"
