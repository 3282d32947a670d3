/* main.c - the cubench executable: register the families compiled in, then
 * hand the command line to the CLI. */
#include "cli.h"
#include "families.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    cb_msg why = {{0}};
    if (cb_families_register_builtin(&why) != CB_OK) {
        fprintf(stderr, "cubench: %s\n", why.text);
        return CB_EXIT_FAILURES;
    }
    return cb_cli_main(argc, argv);
}
