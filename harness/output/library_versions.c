/* library_versions.c - the linked CUDA libraries' versions. */
#include "library_versions.h"

#include <cublas_api.h>
#include <stdio.h>

void cb_cublas_version(char *buf, int len)
{
    int major = 0, minor = 0, patch = 0;
    if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
        cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
        cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS) {
        snprintf(buf, (size_t)len, "unavailable");
        return;
    }
    snprintf(buf, (size_t)len, "%d.%d.%d", major, minor, patch);
}
