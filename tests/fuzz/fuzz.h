/* SPDX-License-Identifier: GPL-2.0 */
/* What the fuzz targets share: an input as a file the code under test
 * opens by path (a memfd, no disk). */
#ifndef IOLENS_FUZZ_H
#define IOLENS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>

/* `data` in a memfd: its fd (path in `path`), or -1. */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("iolens-fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
