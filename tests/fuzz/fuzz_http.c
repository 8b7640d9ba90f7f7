// SPDX-License-Identifier: GPL-2.0
/*
 * serve's HTTP request path (libmicrohttpd and src/serve/httpd.c) as a
 * client meets it: the input is sent on a loopback connection to the
 * running server, which is then told the request ended; whatever comes
 * back must be nothing or an HTTP/1.x answer, within the server's own
 * deadline.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "fuzz.h"
#include "serve/httpd.h"
#include "serve/metrics.h"

static struct sockaddr_in server;

/* One server for the whole run, on a port of the kernel's choosing. */
static int server_start(void)
{
	static struct metrics *m;
	socklen_t len = sizeof(server);
	int fd;

	if (m)
		return 0;
	signal(SIGPIPE, SIG_IGN);
	server.sin_family = AF_INET;
	server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&server, sizeof(server)) ||
	    getsockname(fd, (struct sockaddr *)&server, &len) || listen(fd, 64))
		abort();
	m = metrics_new(true, false, 0, NULL, 0);
	if (!m || !httpd_start("fuzz", fd, m))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pollfd p = { .events = POLLIN };
	char head[8], buf[4096];
	size_t got = 0;
	ssize_t n;

	server_start();
	p.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (p.fd < 0 || connect(p.fd, (struct sockaddr *)&server, sizeof(server)))
		abort();
	/* The server may answer and close before it has read everything. */
	if (size)
		send(p.fd, data, size, MSG_NOSIGNAL);
	/* The end of the request once the server watches the connection: an
	 * end that came with the data before MHD's accept() goes unseen
	 * until its idle timeout (5 s). */
	poll(&p, 1, 20);
	shutdown(p.fd, SHUT_WR);
	/* The connection's deadline is 10 s: longer is a hang. */
	while (poll(&p, 1, 15000) == 1) {
		n = recv(p.fd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		if (got < sizeof(head))
			memcpy(head + got, buf, (size_t)n < sizeof(head) - got ?
			       (size_t)n : sizeof(head) - got);
		got += n;
	}
	if (poll(&p, 1, 0) == 0)
		abort();
	if (got && (got < sizeof(head) || memcmp(head, "HTTP/1.", 7)))
		abort();
	close(p.fd);
	return 0;
}
