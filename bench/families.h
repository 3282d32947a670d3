/* families.h - the families compiled into cubench, for the front ends. */
#ifndef CB_FAMILIES_H
#define CB_FAMILIES_H

#include "registry.h"

/* Register every family of bench/families.def, in its order. Idempotent:
 * a second call finds them registered and does nothing. */
cb_status cb_families_register_builtin(cb_msg *why);

#endif
