/* SPDX-License-Identifier: GPL-2.0 */
/* A small file read whole: /proc and sysfs entries, a container's config. */
#ifndef IOLENS_SMALLFILE_H
#define IOLENS_SMALLFILE_H

#include <stddef.h>
#include <sys/types.h>

/* At most size - 1 bytes of path into buf, NUL-terminated (empty on
 * failure); the length read, or -errno.  A link as the last part of path is
 * not followed, and a FIFO planted there does not block. */
ssize_t smallfile_read(const char *path, char *buf, size_t size);

#endif
