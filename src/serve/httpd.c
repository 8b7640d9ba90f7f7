// SPDX-License-Identifier: GPL-2.0
/*
 * libmicrohttpd glue of `iolens serve`.  One thread of ours runs MHD
 * (epoll): a client that sends nothing or reads slowly holds only its own
 * connection.  MHD's own timeout is one of inactivity, which a client
 * trickling a header line at a time resets for ever, and libmicrohttpd
 * 0.9.75 (Debian 12) has no other; so each connection also has a deadline
 * for its request and answer, enforced between two MHD_run_wait() calls in
 * the same thread, where no connection can close underneath.  When the
 * connections are many, a new one is made room for by closing the oldest
 * that has not sent a whole request (see make_room()).  A scrape
 * formats a snapshot under the metrics lock and never touches the BPF
 * maps: the collector alone reads those.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "lib/clock.h"
#include "serve/httpd.h"
#include "serve/metrics.h"
#include "trace/block_trace.h"	/* mono_ns() */
#include "lib/log.h"

/* Bounds on what clients may take: connections at once, and from one
 * address (past either, make_room() closes one; MHD's own cap, higher,
 * leaves room for those until MHD sees them closed, and stays below the
 * 1024 descriptors of a default RLIMIT_NOFILE); seconds of inactivity
 * before a connection is closed; time from a connection's start to the
 * end of its answer (a connection serves one request: an answer queued
 * at the first call of on_request() makes MHD say "Connection: close";
 * Prometheus's default scrape timeout is 10 s); and memory per
 * connection, which also caps a request's line and headers (beyond it
 * the answer is 431 or 413): at most MHD_CONNECTIONS * CONN_MEMORY,
 * 16 MiB. */
#define MAX_CONNECTIONS		256
#define MAX_PER_ADDRESS		64
#define MHD_CONNECTIONS		512
#define CONN_TIMEOUT_S		5
#define CONN_DEADLINE_NS	(10 * 1000000000ULL)
#define CONN_MEMORY		(32 * 1024)
/* How often the deadlines are looked at, and how soon a stop is seen. */
#define POLL_MS			100
/* /healthz fails when the collector has not added an interval for this
 * long: it reads every second. */
#define STALE_NS		(5 * 1000000000ULL)

/* A client's address without its port. */
struct peer {
	sa_family_t family;
	unsigned char addr[16];
};

/* One open connection, known to the serving thread alone. */
struct conn {
	struct conn *next, **pprev;
	int fd;
	__u64 deadline;
	struct peer peer;
	bool requested;		/* its request came whole */
	bool closing;		/* shut down by us: MHD closes it next */
};

struct httpd {
	struct MHD_Daemon *d;
	struct metrics *m;
	pthread_t thread;
	bool stopping;
	struct conn *conns;
};

static const char index_html[] =
	"<!DOCTYPE html>\n<html><head><title>iolens</title></head><body>\n"
	"<h1>iolens serve</h1>\n"
	"<p>Block I/O metrics from the kernel's tracepoints, per device and op.</p>\n"
	"<ul><li><a href=\"/metrics\">/metrics</a></li>\n"
	"<li><a href=\"/healthz\">/healthz</a></li></ul>\n"
	"</body></html>\n";

static enum MHD_Result answer(struct MHD_Connection *c, unsigned int status,
			      const char *type, void *body, size_t len,
			      enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned int status,
			    const char *msg)
{
	return answer(c, status, "text/plain; charset=utf-8", (void *)msg,
		      strlen(msg), MHD_RESPMEM_PERSISTENT);
}

/* OpenMetrics when the scraper lists it (Prometheus does, ahead of the text
 * format); the text format otherwise. */
static bool wants_openmetrics(struct MHD_Connection *c)
{
	const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_ACCEPT);

	return a && strstr(a, "application/openmetrics-text");
}

static enum MHD_Result metrics_page(struct httpd *h, struct MHD_Connection *c)
{
	bool om = wants_openmetrics(c);
	size_t len;
	char *body = metrics_format(h->m, om, &len);

	if (!body)
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return answer(c, MHD_HTTP_OK, om ?
		      "application/openmetrics-text; version=1.0.0; charset=utf-8" :
		      "text/plain; version=0.0.4; charset=utf-8",
		      body, len, MHD_RESPMEM_MUST_FREE);
}

/*
 * The routes are compared as C strings, so a NUL in the path would cut it
 * and /metrics%00junk or "/healthz<NUL>.html" would be /metrics and
 * /healthz.  A NUL comes in two ways, and neither reaches a route:
 *
 * - encoded, "%00": MHD's decoding (this callback, for the path and the
 *   query's names and values) leaves a string that would decode to a NUL
 *   as it was sent, which names no route;
 * - raw in the request line: MHD 0.9.75 cuts the line in place, a NUL
 *   where the space before the HTTP version was, and gives that version
 *   to on_request().  raw_target_end() is called before the path is
 *   decoded or the query cut off, and its answer comes to on_request()
 *   as *req: where the target's C string ends.  Unless that end is the
 *   version's separator, the target held a NUL of its own.
 */
static size_t unescape_but_nul(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls;
	(void)c;
	if (strstr(s, "%00"))
		return strlen(s);
	return MHD_http_unescape(s);
}

static void *raw_target_end(void *cls, const char *uri, struct MHD_Connection *c)
{
	(void)cls;
	(void)c;
	return (void *)(uri + strlen(uri));
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **req)
{
	struct httpd *h = cls;
	const char *end = *req;
	const union MHD_ConnectionInfo *ci;
	__u64 at;

	(void)upload;
	/* Not to be closed to make room from now on: it only waits for its
	 * answer to be read. */
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (ci && ci->socket_context)
		((struct conn *)ci->socket_context)->requested = true;
	/* No request here has a body: the answer goes out before one is
	 * read, and MHD then closes the connection. */
	(void)upload_size;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (!end || end + 1 != version)
		return text(c, MHD_HTTP_NOT_FOUND, "not found: see /\n");
	if (!strcmp(url, "/metrics"))
		return metrics_page(h, c);
	if (!strcmp(url, "/"))
		return answer(c, MHD_HTTP_OK, "text/html; charset=utf-8",
			      (void *)index_html, sizeof(index_html) - 1,
			      MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/healthz")) {
		at = metrics_collected_ns(h->m);
		if (at && mono_ns() - at > STALE_NS)
			return text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				    "stale: the collector has not read the kernel's counters for 5 s\n");
		return text(c, MHD_HTTP_OK, "ok\n");
	}
	return text(c, MHD_HTTP_NOT_FOUND, "not found: see /\n");
}

/* libmicrohttpd's messages (bad requests, refused connections) only with
 * -v: a client must not be able to fill a service's log. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fputs("iolens serve: httpd: ", stderr);
	vfprintf(stderr, fmt, ap);
}

static void peer_of(const struct sockaddr *sa, struct peer *p)
{
	memset(p, 0, sizeof(*p));
	if (!sa)
		return;
	p->family = sa->sa_family;
	if (sa->sa_family == AF_INET)
		memcpy(p->addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(p->addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

/* A connection shut down, not closed: MHD sees the end of the stream at
 * its next run and closes it as its own. */
static void conn_close(struct conn *k)
{
	shutdown(k->fd, SHUT_RDWR);
	k->deadline = UINT64_MAX;
	k->closing = true;
}

/* What make_room() found in one scope: its live connections, the
 * oldest that has not sent a whole request, and the oldest of all. */
struct scope {
	int n;
	struct conn *idle, *oldest;
};

static void scope_add(struct scope *s, struct conn *x)
{
	s->n++;
	s->oldest = x;
	if (!x->requested)
		s->idle = x;
}

/*
 * `k` has just come.  Past MAX_PER_ADDRESS connections of its address,
 * or MAX_CONNECTIONS in all, the oldest of that scope that has not sent
 * a whole request is closed: a scraper sends its request as it connects,
 * and one that has sent it is answered in a moment.  A cap that refused
 * the newcomer instead let idle or trickling clients of the scraper's own
 * address (a local user, or peers behind one NAT) keep Prometheus out for
 * ever; now they can only race it.  When every one has sent its request,
 * the oldest goes: it holds an answer it does not read (the deadline
 * would end it anyway), which must not keep a new scraper out either.
 */
static void make_room(struct httpd *h, struct conn *k)
{
	struct scope same = { 0 }, all = { 0 };
	struct conn *x;

	/* Newest first: the last one seen of a kind is the oldest. */
	for (x = h->conns; x; x = x->next) {
		bool mine;

		if (x->closing)
			continue;
		mine = !memcmp(&x->peer, &k->peer, sizeof(k->peer));
		scope_add(&all, x);
		if (mine)
			scope_add(&same, x);
	}
	if (same.n > MAX_PER_ADDRESS)
		conn_close(same.idle ?: same.oldest);
	else if (all.n > MAX_CONNECTIONS)
		conn_close(all.idle ?: all.oldest);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
			  enum MHD_ConnectionNotificationCode what)
{
	struct httpd *h = cls;
	const union MHD_ConnectionInfo *ci;
	struct conn *k = *ctx;

	if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (k) {
			*k->pprev = k->next;
			if (k->next)
				k->next->pprev = k->pprev;
			free(k);
		}
		return;
	}
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	k = calloc(1, sizeof(*k));
	/* Without its entry a connection has only MHD's idle timeout. */
	if (!k || !ci) {
		free(k);
		return;
	}
	k->fd = ci->connect_fd;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	peer_of(ci ? ci->client_addr : NULL, &k->peer);
	k->deadline = mono_ns() + CONN_DEADLINE_NS;
	k->next = h->conns;
	k->pprev = &h->conns;
	if (h->conns)
		h->conns->pprev = &k->next;
	h->conns = k;
	*ctx = k;
	make_room(h, k);
}

static void enforce_deadlines(struct httpd *h)
{
	__u64 now = mono_ns();
	struct conn *k;

	for (k = h->conns; k; k = k->next)
		if (now > k->deadline)
			conn_close(k);
}

static void *serve_thread(void *arg)
{
	struct httpd *h = arg;

	while (!__atomic_load_n(&h->stopping, __ATOMIC_ACQUIRE)) {
		if (MHD_run_wait(h->d, POLL_MS) != MHD_YES) {
			/* /healthz stops answering too: a supervisor sees it. */
			pr_err("the HTTP server failed; no more scrapes are answered");
			break;
		}
		enforce_deadlines(h);
	}
	return NULL;
}

struct httpd *httpd_start(const char *cmd, int fd, struct metrics *m)
{
	struct httpd *h = calloc(1, sizeof(*h));
	unsigned int flags = MHD_USE_EPOLL;

	if (!h) {
		close(fd);
		return NULL;
	}
	if (log_verbose)
		flags |= MHD_USE_ERROR_LOG;
	h->m = m;
	/* The logger first: MHD logs its own way what comes before it. */
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MHD_CONNECTIONS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONN_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				MHD_OPTION_URI_LOG_CALLBACK, raw_target_end, NULL,
				MHD_OPTION_UNESCAPE_CALLBACK, unescape_but_nul, NULL,
				MHD_OPTION_END);
	if (!h->d) {
		fprintf(stderr, "iolens %s: cannot start the HTTP server\n", cmd);
		close(fd);
		free(h);
		return NULL;
	}
	if (pthread_create(&h->thread, NULL, serve_thread, h)) {
		fprintf(stderr, "iolens %s: cannot start the HTTP server's thread\n", cmd);
		MHD_stop_daemon(h->d);
		free(h);
		return NULL;
	}
	return h;
}

void httpd_stop(struct httpd *h)
{
	if (!h)
		return;
	__atomic_store_n(&h->stopping, true, __ATOMIC_RELEASE);
	pthread_join(h->thread, NULL);
	/* Closes the listening socket and every connection, each through
	 * on_connection(): MHD owns them. */
	MHD_stop_daemon(h->d);
	free(h);
}
