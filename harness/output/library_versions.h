/* library_versions.h - versions of the CUDA libraries cubench links, for
 * `cubench env` and meta.json. In the engine, not in common/: common is
 * plain C that builds without the CUDA headers. */
#ifndef CB_LIBRARY_VERSIONS_H
#define CB_LIBRARY_VERSIONS_H

/* cuBLAS version as "13.0.2" (cublasGetProperty), or "unavailable". */
void cb_cublas_version(char *buf, int len);

#endif
