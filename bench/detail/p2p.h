/* p2p.h - the peer-to-peer family's own output. */
#ifndef CB_P2P_H
#define CB_P2P_H

#include "registry.h"

/* p2p_matrix.csv: for every (src, dst, peer, direction) the bandwidth at
 * the largest size that was timed, so a device x device heatmap is one
 * read (docs/multi-gpu.md). Written only when the run has timed p2p rows. */
cb_status cb_p2p_write_matrix(const char *dir, const cb_result *rows, int n, cb_msg *why);

#endif
