/* main.c - cubench with one more family, registered out of tree: the
 * built-in families, then saxpy, then the ordinary command line. The same
 * three lines are how any program embeds cubench with families of its own. */
#include "cli.h"
#include "families.h"
#include "saxpy_example.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    cb_msg why = {{0}};
    if (cb_families_register_builtin(&why) != CB_OK ||
        cb_registry_add_family(&cb_example_family_saxpy, &why) != CB_OK) {
        fprintf(stderr, "cubench: %s\n", why.text);
        return CB_EXIT_FAILURES;
    }
    return cb_cli_main(argc, argv);
}
