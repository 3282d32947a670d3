/* nvtx_ranges.c - the "cubench" NVTX domain. */
#include "nvtx_ranges.h"
#include "cupti_timer.h"

#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Distinct, readable on dark and light timelines (Tableau 10 + 2). */
static const uint32_t cb_palette[] = {
    0xFF4E79A7, 0xFFF28E2B, 0xFFE15759, 0xFF76B7B2, 0xFF59A14F, 0xFFEDC948,
    0xFFB07AA1, 0xFFFF9DA7, 0xFF9C755F, 0xFFBAB0AC, 0xFF2F4B7C, 0xFFA05195,
};

#define CB_NVTX_MAX_FAMILIES 64
#define CB_NVTX_FAMILY_LEN   48

/* Only the runner's thread pushes ranges; no lock needed. */
static bool g_init;
static nvtxDomainHandle_t g_domain;
static char g_injection[4096];
static bool g_injection_ours;
static bool g_point_open;
static char g_families[CB_NVTX_MAX_FAMILIES][CB_NVTX_FAMILY_LEN];
static int g_n_families;

void cb_nvtx_init(bool inject_cupti)
{
    if (g_init) return;
    g_init = true;
    /* NVTX reads the variable once, at its first call: it must be set
     * before nvtxDomainCreateA below. nsys and ncu set it to their own
     * injection library; never override them. */
    const char *env = getenv("NVTX_INJECTION64_PATH");
    if (inject_cupti && (!env || !env[0])) {
        char path[sizeof g_injection];
        if (cb_cupti_library_path(path, sizeof path) &&
            setenv("NVTX_INJECTION64_PATH", path, 0) == 0)
            g_injection_ours = true;
        env = getenv("NVTX_INJECTION64_PATH");
    }
    snprintf(g_injection, sizeof g_injection, "%s", env ? env : "");
    g_domain = nvtxDomainCreateA("cubench");
}

const char *cb_nvtx_injection(bool *set_by_cubench)
{
    if (set_by_cubench) *set_by_cubench = g_injection_ours;
    return g_injection;
}

/* Length of the family part of "family/variant". */
static size_t cb_family_len(const char *bench)
{
    const char *slash = strchr(bench, '/');
    return slash ? (size_t)(slash - bench) : strlen(bench);
}

uint32_t cb_nvtx_family_color(const char *bench)
{
    /* FNV-1a: stable across runs and machines, unlike pointer hashes. */
    uint32_t h = 2166136261u;
    if (!bench) bench = "";
    size_t n = cb_family_len(bench);
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)bench[i];
        h *= 16777619u;
    }
    return cb_palette[h % CB_ARRAY_LEN(cb_palette)];
}

/* NVTX category of the family (1-based; 0 = none when the table is full),
 * named in the domain the first time it is seen. */
static uint32_t cb_family_category(const char *bench)
{
    size_t n = cb_family_len(bench);
    if (n >= CB_NVTX_FAMILY_LEN) n = CB_NVTX_FAMILY_LEN - 1;
    for (int i = 0; i < g_n_families; i++)
        if (strlen(g_families[i]) == n && strncmp(g_families[i], bench, n) == 0)
            return (uint32_t)i + 1;
    if (g_n_families == CB_NVTX_MAX_FAMILIES) return 0;
    memcpy(g_families[g_n_families], bench, n);
    g_families[g_n_families][n] = '\0';
    g_n_families++;
    nvtxDomainNameCategoryA(g_domain, (uint32_t)g_n_families, g_families[g_n_families - 1]);
    return (uint32_t)g_n_families;
}

void cb_nvtx_point_push(const char *bench, const char *axes)
{
    if (!g_init) cb_nvtx_init(false);
    if (g_point_open) return;
    if (!bench) bench = "?";
    char text[512];
    if (axes && axes[0])
        snprintf(text, sizeof text, "%s %s", bench, axes);
    else
        snprintf(text, sizeof text, "%s", bench);
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = cb_family_category(bench);
    a.colorType = NVTX_COLOR_ARGB;
    a.color = cb_nvtx_family_color(bench);
    a.messageType = NVTX_MESSAGE_TYPE_ASCII; /* unique per point: not worth registering */
    a.message.ascii = text;
    nvtxDomainRangePushEx(g_domain, &a);
    g_point_open = true;
}

void cb_nvtx_point_pop(void)
{
    if (!g_point_open) return;
    nvtxDomainRangePop(g_domain);
    g_point_open = false;
}
