/* run_config.c - the default settings of a run (README: the defaults). */
#include "run_config.h"

#include <string.h>
#include <unistd.h>

void cb_run_config_defaults(cb_run_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->stop.min_samples = 10;
    cfg->stop.max_samples = 100000;
    cfg->stop.target_rel = 0.005;
    cfg->stop.max_time_s = 1.0;
    cfg->stop.futile_share = 0.5; /* stats.h: how these were chosen */
    cfg->stop.futile_factor = 3.0;
    cfg->cache = CB_CACHE_COLD;
    cfg->hot_min_sample_s = 100e-6;
    cfg->warmup_runs = 3;
    cfg->warmup_max_s = 0.25;
    cfg->seed = 0x5eed2026;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cfg->host_threads = cores > 0 ? (int)cores : 1;
    cfg->use_cupti = true;
    cfg->nvtx = true;
    cfg->replicates = 0; /* auto */
    cfg->throttle_wait_max_s = 1.0;
    cfg->cap_settle_s = 0.3; /* docs/methodology.md: how the H200 falls to its capped clock */
}
