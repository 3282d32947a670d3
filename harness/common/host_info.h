/* host_info.h - what the environment records about the host machine. */
#ifndef CB_HOST_INFO_H
#define CB_HOST_INFO_H

typedef struct cb_host_info {
    char hostname[128];
    char os[128];     /* PRETTY_NAME from /etc/os-release            */
    char kernel[400]; /* uname -srm                                  */
    char cpu[160];    /* "model name" from /proc/cpuinfo             */
    int cores;        /* online logical CPUs                         */
    long long mem_bytes;
} cb_host_info;

void cb_host_info_read(cb_host_info *h);

#endif
