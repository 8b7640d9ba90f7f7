/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Paths root opens that another user may have prepared: an output, a job
 * file, a load target, a log, a toprc.  Any component may be a symbolic
 * link that user planted (~user/out -> /root/dir), not only the last one.
 *
 * A path with no link in it is opened by openat2() with
 * RESOLVE_NO_SYMLINKS (Linux 5.6); one with a link, or on a kernel or
 * under a seccomp filter without openat2(), is walked component by
 * component with O_NOFOLLOW, as systemd's chase() does: a link is
 * followed only if it and every folder before it are owned by root or by
 * the caller.  So /var/run -> /run and udev's /dev/disk/by-id links work,
 * and a link another user owns, or one in a folder another user owns
 * (who could swap it), is refused wherever it is in the path.  A link in
 * procfs (/dev/stdout -> /proc/self/fd/1) is the kernel's to follow: only
 * as the last component, and only where the rule above trusts it.
 */
#ifndef IOLENS_SAFEPATH_H
#define IOLENS_SAFEPATH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct safepath {
	int dirfd;		/* O_PATH fd of the folder `last` is in */
	char last[NAME_MAX + 1];/* the last component, not a link of
				 * anyone's when resolved; "." if the path
				 * names a folder */
	bool magic;		/* last is a trusted link in procfs */
};

/* Whether paths are resolved by openat2() here (else only by the walk):
 * what doctor says. */
bool safepath_openat2(void);

/* Every component of path but the last resolved by the rule above: 0, or
 * -1 with errno (EPERM for a refused link) and the reason in why. */
int safepath_resolve(const char *path, struct safepath *sp, char *why, size_t len);

/* path opened with flags (O_NOFOLLOW is added; O_CREAT makes it with mode
 * if absent, *created says whether it did): its fd, or -1 with errno and
 * the reason in why. */
int safepath_open(const char *path, int flags, mode_t mode, bool *created,
		  char *why, size_t len);

/* A file root reads that a user may have prepared (a job file, a trace, a
 * toprc), opened by the rule above without blocking on a FIFO: a regular
 * file, or with `fifo` also a FIFO or socket of the caller's; its fd
 * (blocking again), or -1 with errno and the reason in why ("a FIFO, not
 * a regular file"). */
int safepath_open_input(const char *path, bool fifo, char *why, size_t len);

/* The reason for one line in why, and -1: a refusal (errno EPERM: the
 * caller's usage error), or the failure err (errno err). */
int safepath_refuse(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int safepath_fail(int err, char *why, size_t len);

/* Whether fd is on a pseudo file system (procfs, sysfs, debugfs, tracefs,
 * cgroupfs, configfs, securityfs, bpffs, efivarfs, ...) or is a regular
 * file on the one mounted at /dev: its name for the message, or NULL. */
const char *safepath_pseudo_fs(int fd);

#endif
