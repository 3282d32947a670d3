/* open_file.c - opening a file that must be a regular one (open_file.h). */
#include "open_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int cb_open_regular(const char *path, bool *not_regular)
{
    *not_regular = false;
    /* O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer
     * before fstat can say what it is. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) goto fail;
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        *not_regular = true;
        errno = EINVAL;
        return -1;
    }
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) goto fail;
    return fd;
fail:;
    const int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}
