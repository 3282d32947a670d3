/* fuzz.h - what every fuzz target shares: the libFuzzer entry point (also
 * called by fuzz_main.c) and the property check. A target defines
 * FUZZ_TARGET, its name as a string, before including this, so that a
 * violation names the target as well as the file and line. */
#ifndef CB_FUZZ_H
#define CB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A violated property aborts, which libFuzzer reports with the input. */
#define FUZZ_ASSERT(cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, FUZZ_TARGET ": %s:%d: %s\n", __FILE__, __LINE__, #cond);               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif
