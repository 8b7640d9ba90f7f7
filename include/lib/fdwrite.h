/* SPDX-License-Identifier: GPL-2.0 */
/* Whole writes to a file descriptor: write() and writev() may write less
 * than asked (to a pipe, or when a signal comes), and the rest must follow
 * in order. */
#ifndef IOLENS_FDWRITE_H
#define IOLENS_FDWRITE_H

#include <stddef.h>
#include <sys/uio.h>

/* All of iov, which is moved past what went out.  0, or -1 with errno. */
int fd_writev_all(int fd, struct iovec *iov, int n);

/* All n bytes at p.  0, or -1 with errno. */
int fd_write_all(int fd, const void *p, size_t n);

#endif
