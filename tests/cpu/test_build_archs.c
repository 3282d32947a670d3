/* test_build_archs.c - the GPU architectures this build was configured with
 * against the toolkit that built it: the test asks nvcc itself (the one in
 * build_info.h) for `--list-gpu-code`, `--list-gpu-arch` and `--version`,
 * so a CMake change that drops an architecture from the default, or reads
 * the toolkit's lists wrongly, fails here. Also: the SASS / PTX lists that
 * meta.json reports are the split of CMAKE_CUDA_ARCHITECTURES, and the
 * default build has machine code for every architecture it promises. */
/* test links: cubench_core cubench_build_info */
#include "build_info.h"
#include "capability.h"
#include "cb_test.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARCHS 64

typedef struct arch_list {
    char item[MAX_ARCHS][8]; /* "75", "90a" */
    int n;
} arch_list;

static void add_arch(arch_list *l, const char *text, size_t len)
{
    if (len == 0 || len >= sizeof l->item[0] || l->n == MAX_ARCHS) return;
    char v[8];
    memcpy(v, text, len);
    v[len] = '\0';
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->item[i], v) == 0) return;
    /* Insert in numeric order, so lists compare regardless of spelling. */
    int at = l->n;
    while (at > 0 && atoi(l->item[at - 1]) > atoi(v))
        at--;
    memmove(l->item[at + 1], l->item[at], (size_t)(l->n - at) * sizeof l->item[0]);
    snprintf(l->item[at], sizeof l->item[at], "%s", v);
    l->n++;
}

static arch_list parse_commas(const char *s)
{
    arch_list l = {.n = 0};
    while (*s) {
        size_t len = strcspn(s, ",");
        add_arch(&l, s, len);
        s += len + (s[len] == ',');
    }
    return l;
}

static bool same(const arch_list *a, const arch_list *b)
{
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->item[i], b->item[i]) != 0) return false;
    return true;
}

static void print_list(const char *what, const arch_list *l)
{
    fprintf(stderr, "  %s:", what);
    for (int i = 0; i < l->n; i++)
        fprintf(stderr, " %s", l->item[i]);
    fprintf(stderr, "\n");
}

/* Run `nvcc FLAG` and collect every PREFIX_NN word (no letter suffix). */
static bool nvcc_list(const char *flag, const char *prefix, arch_list *out)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", CB_NVCC, flag);
    FILE *p = popen(cmd, "r");
    if (!p) return false;
    out->n = 0;
    char word[64];
    size_t plen = strlen(prefix);
    while (fscanf(p, "%63s", word) == 1) {
        if (strncmp(word, prefix, plen) != 0) continue;
        const char *num = word + plen;
        size_t digits = strspn(num, "0123456789");
        if (digits > 0 && num[digits] == '\0') add_arch(out, num, digits);
    }
    return pclose(p) == 0 && out->n > 0;
}

/* CMAKE_CUDA_ARCHITECTURES ("75-real;90-virtual;80") split as CMake and
 * cmake/CubenchCudaArchs.cmake do; false for the special words. */
static bool split_cmake(const char *spec, arch_list *sass, arch_list *ptx)
{
    sass->n = ptx->n = 0;
    if (!isdigit((unsigned char)spec[0])) return false; /* native, all, all-major */
    while (*spec) {
        size_t len = strcspn(spec, ";");
        size_t num = strspn(spec, "0123456789abcdefghijklmnopqrstuvwxyz");
        if (num > len) num = len;
        const char *rest = spec + num;
        bool real = strncmp(rest, "-real", 5) == 0, virt = strncmp(rest, "-virtual", 8) == 0;
        if (!virt) add_arch(sass, spec, num);
        if (!real) add_arch(ptx, spec, num);
        spec += len + (spec[len] == ';');
    }
    return true;
}

static void test_split(void)
{
    arch_list sass, ptx;
    if (!split_cmake(CB_CUDA_ARCHITECTURES, &sass, &ptx)) {
        printf("CMAKE_CUDA_ARCHITECTURES=%s: resolved by CMake, split not re-checked\n",
               CB_CUDA_ARCHITECTURES);
        return;
    }
    arch_list built_sass = parse_commas(CB_CUDA_SASS_ARCHS);
    arch_list built_ptx = parse_commas(CB_CUDA_PTX_ARCHS);
    CB_CHECK(same(&sass, &built_sass));
    CB_CHECK(same(&ptx, &built_ptx));
    if (!same(&sass, &built_sass) || !same(&ptx, &built_ptx)) {
        fprintf(stderr, "  CMAKE_CUDA_ARCHITECTURES=%s\n", CB_CUDA_ARCHITECTURES);
        print_list("build_info SASS", &built_sass);
        print_list("build_info PTX", &built_ptx);
    }
}

static void test_against_toolkit(void)
{
    arch_list code, arch;
    CB_CHECK(nvcc_list("--list-gpu-code", "sm_", &code));
    CB_CHECK(nvcc_list("--list-gpu-arch", "compute_", &arch));
    if (code.n == 0 || arch.n == 0) {
        fprintf(stderr, "  cannot ask %s for its architectures\n", CB_NVCC);
        return;
    }
    arch_list promised = {.n = 0}; /* sm_XY >= 75, the portable default */
    for (int i = 0; i < code.n; i++)
        if (atoi(code.item[i]) >= 75) add_arch(&promised, code.item[i], strlen(code.item[i]));
    const char *newest = arch.item[arch.n - 1];

    /* What configure recorded about the toolkit is what the toolkit says. */
    arch_list recorded = parse_commas(CB_CUDA_TOOLKIT_SASS_ARCHS);
    CB_CHECK(same(&recorded, &promised));
    CB_CHECK_STR(CB_CUDA_TOOLKIT_PTX_NEWEST, newest);

    /* Every SASS architecture of the build is one the toolkit can build. */
    arch_list built = parse_commas(CB_CUDA_SASS_ARCHS);
    for (int i = 0; i < built.n; i++) {
        const char *a = built.item[i];
        if (!isdigit((unsigned char)a[strlen(a) - 1])) continue; /* 90a: not listed */
        bool known = false;
        for (int j = 0; j < code.n; j++)
            known |= strcmp(code.item[j], a) == 0;
        CB_CHECK(known);
        if (!known) fprintf(stderr, "  sm_%s is not in `nvcc --list-gpu-code`\n", a);
    }

    if (strcmp(CB_CUDA_ARCH_ORIGIN, "default") != 0) {
        printf("architectures named by the user (%s): default list not checked\n",
               CB_CUDA_ARCHITECTURES);
        return;
    }
    /* The default: SASS for each promised architecture, PTX of the newest. */
    CB_CHECK(same(&built, &promised));
    if (!same(&built, &promised)) {
        print_list("built SASS", &built);
        print_list("toolkit sm >= 75", &promised);
    }
    CB_CHECK_STR(CB_CUDA_PTX_ARCHS, newest);
    for (int i = 0; i < promised.n; i++) {
        char used[16];
        int cc = atoi(promised.item[i]);
        CB_CHECK(cb_build_code_for(cc, CB_CUDA_SASS_ARCHS, CB_CUDA_PTX_ARCHS, used, sizeof used) ==
                 CB_CODE_SASS);
        CB_CHECK_STR(used, promised.item[i]);
    }
    /* A GPU newer than the toolkit still runs the build: through the PTX. */
    char used[16];
    CB_CHECK(cb_build_code_for(atoi(newest) + 10, CB_CUDA_SASS_ARCHS, CB_CUDA_PTX_ARCHS, used,
                               sizeof used) == CB_CODE_PTX);
    printf("default build: SASS {%s}, PTX {%s}, as `%s --list-gpu-code` promises\n",
           CB_CUDA_SASS_ARCHS, CB_CUDA_PTX_ARCHS, CB_NVCC);
}

/* "Cuda compilation tools, release 13.0, V13.0.88": the V number is the
 * version configure recorded. */
static void test_toolkit_version(void)
{
    char cmd[600], line[256], found[64] = "";
    snprintf(cmd, sizeof cmd, "'%s' --version 2>/dev/null", CB_NVCC);
    FILE *p = popen(cmd, "r");
    CB_CHECK(p != NULL);
    if (!p) return;
    while (fgets(line, sizeof line, p)) {
        const char *v = strstr(line, ", V");
        if (v) sscanf(v + 3, "%63[0-9.]", found);
    }
    pclose(p);
    CB_CHECK_STR(found, CB_CUDA_TOOLKIT_VERSION);
}

int main(void)
{
    test_split();
    test_against_toolkit();
    test_toolkit_version();
    return cb_test_finish("test_build_archs");
}
