// SPDX-License-Identifier: GPL-2.0
/* Whole writes to a file descriptor (lib/fdwrite.h). */
#include <errno.h>
#include <unistd.h>
#include "lib/fdwrite.h"

int fd_writev_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			errno = w ? errno : EIO;
			return -1;
		}
		for (; n && (size_t)w >= iov->iov_len; iov++, n--)
			w -= iov->iov_len;
		if (n) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= w;
		}
	}
	return 0;
}

int fd_write_all(int fd, const void *p, size_t n)
{
	struct iovec iov = { (void *)p, n };

	return fd_writev_all(fd, &iov, 1);
}
