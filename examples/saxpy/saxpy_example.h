/* saxpy_example.h - the example family, for the front end that adds it. */
#ifndef CB_SAXPY_EXAMPLE_H
#define CB_SAXPY_EXAMPLE_H

#include "registry.h"

extern const cb_family cb_example_family_saxpy;

#endif
