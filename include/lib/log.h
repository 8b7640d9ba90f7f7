/* SPDX-License-Identifier: GPL-2.0 */
/* Error reporting: one clear line on stderr; libbpf's log only with -v. */
#ifndef IOLENS_LOG_H
#define IOLENS_LOG_H

#include <stddef.h>

extern int log_verbose;

/* Route libbpf's messages to stderr when -v was given, drop them otherwise. */
void log_setup_libbpf(void);

/* "iolens: <msg>" on stderr. */
void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* `s` as it may be echoed in a message: at most about 60 characters (cut
 * with "..."), bytes other than printable ASCII as \xNN.  Written to buf
 * (80 bytes are enough), which is returned. */
#define LOG_EXCERPT_LEN 80
const char *log_excerpt(const char *s, char *buf, size_t len);

/* A name someone else wrote (a file name, a job name) as a message shows
 * it: lib/sanitize's terminal text, cut with "..." past about 1,000 bytes
 * (a 1 MB filename= is no 1 MB line).  In a buffer of the calling
 * thread's, one of four in turn: up to four in one message. */
const char *log_name(const char *s);

/* "iolens <cmd>: <msg> (see 'iolens <cmd> --help')" on stderr; returns 2,
 * the exit code for usage errors. */
int usage_err(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
