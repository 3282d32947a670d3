/* The engine naming a family: must NOT compile (the engine knows no family). */
#include "families.h"
