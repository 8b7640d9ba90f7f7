/* SPDX-License-Identifier: GPL-2.0 */
/* The HTTP side of `iolens serve` (libmicrohttpd): /metrics, / and
 * /healthz, answered from snapshots of struct metrics. */
#ifndef IOLENS_HTTPD_H
#define IOLENS_HTTPD_H

struct httpd;
struct metrics;

/* Serves on `fd`, a socket bound and listening (owned from now on), from
 * its own thread.  NULL after one line for `cmd` if it cannot start. */
struct httpd *httpd_start(const char *cmd, int fd, struct metrics *m);

/* Stops serving; waits for the thread and closes every connection. */
void httpd_stop(struct httpd *h);

#endif
