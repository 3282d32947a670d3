/* A front end reaching a layer's private header (harness/timing/detail):
 * must NOT compile, since only a layer's top folder is exported. */
#include "cupti_records.h"
