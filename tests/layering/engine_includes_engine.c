/* The control: an engine source including engine headers compiles. */
#include "registry.h"
#include "runner.h"
