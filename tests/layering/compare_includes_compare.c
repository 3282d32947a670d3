/* The control: a compare source including compare headers compiles. */
#include "compare.h"
#include "csv_reader.h"
