// SPDX-License-Identifier: GPL-2.0
/*
 * top's files view.  Only a request knows its file (bpf/rqfile.bpf.h), so
 * the view runs the per-request block tracer with files, draining its
 * ring in a thread of its own into a table by file that each frame takes.
 * Its cost (tools/bench_trace.py, "snoop --files") is paid only while
 * files are asked for: the tracer starts with the view.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/clock.h"
#include "lib/devices.h"
#include "lib/fileid.h"
#include "lib/ksyms.h"
#include "lib/procstat.h"
#include "lib/proctree.h"
#include "lib/sanitize.h"
#include "lib/units.h"
#include "lib/vec.h"
#include "top/files.h"
#include "top/top.h"
#include "trace/block_trace.h"
#include "trace/rqfile.h"

struct top_files {
	struct block_trace *bt;
	pthread_t thread;
	bool running;
	__u64 since;		/* attached */
	pthread_mutex_t lock;
	struct top_file *tab;	/* open addressing, TABLE_SLOTS */
	int n;
	struct top_file others;	/* beyond TOP_FILES_MAX */
	/* Only the requests of these, judged in the tracer's thread. */
	struct top_files_who who;
	bool choosing;
	int roots[16];
	struct proctree tree;
	struct proc_seen *procs;	/* this frame's submitters */
	int nprocs;
	unsigned int frame, procs_frame;	/* taken; the frame procs are of */
	__u64 unjudged;
};

struct proc_seen {
	__u32 tgid;
	bool gone;
	__u32 uid;			/* effective */
	char comm[IOLENS_COMM_LEN];	/* its leader's */
};

/* At most half full, so that a lookup ends soon. */
#define TABLE_SLOTS	(2 * TOP_FILES_MAX)

static bool same_file(const struct iolens_rq *a, const struct iolens_rq *b)
{
	return a->fkind == b->fkind && a->fdev == b->fdev && a->ino == b->ino &&
	       a->fgen == b->fgen;
}

/* The row of rq's file; `others` when the table is full. */
static struct top_file *row_of(struct top_files *tf, const struct iolens_rq *rq)
{
	__u64 h = fileid_hash(rq->fdev, rq->ino ^ (__u64)rq->fkind << 60, rq->fgen);

	for (__u32 i = h >> 40;; i++) {
		struct top_file *f = &tf->tab[i % TABLE_SLOTS];

		if (f->used && same_file(&f->id, rq))
			return f;
		if (f->used)
			continue;
		if (tf->n >= TOP_FILES_MAX)
			return &tf->others;
		f->used = true;
		f->id.fkind = rq->fkind;
		f->id.fdev = rq->fdev;
		f->id.ino = rq->ino;
		f->id.fgen = rq->fgen;
		tf->n++;
		return f;
	}
}

static void add_proc(struct top_file *f, const struct iolens_rq *rq)
{
	int i;

	/* In flight at the start: no submitter known. */
	if (rq->ctx == IOLENS_CTX_NONE) {
		f->others_bytes += rq->bytes;
		return;
	}
	for (i = 0; i < TOP_FILE_PROCS && f->procs[i].pid; i++) {
		if (f->procs[i].pid == rq->pid) {
			f->procs[i].bytes += rq->bytes;
			return;
		}
	}
	if (i == TOP_FILE_PROCS) {
		f->others_bytes += rq->bytes;
		return;
	}
	f->procs[i].pid = rq->pid;
	memcpy(f->procs[i].comm, rq->comm, IOLENS_COMM_LEN);
	f->procs[i].bytes = rq->bytes;
}

/* A new frame taken: what /proc said of processes is read again (a pid
 * may be another process's by now), and the tree forgets the gone. */
static void frame_turn(struct top_files *tf)
{
	unsigned int frame = __atomic_load_n(&tf->frame, __ATOMIC_ACQUIRE);

	if (frame == tf->procs_frame)
		return;
	tf->nprocs = 0;
	tf->procs_frame = frame;
	proctree_forget_gone(&tf->tree);
}

/* Process tgid as /proc says it, read once a frame: NULL if it is gone
 * (or no memory to keep it). */
static const struct proc_seen *proc_of(struct top_files *tf, __u32 tgid)
{
	struct proc_seen *p;
	struct procstat ps;
	char path[32];

	p = vec_find(tf->procs, tf->nprocs, sizeof(*p), offsetof(struct proc_seen, tgid),
		     &tgid, sizeof(tgid));
	if (p)
		return p->gone ? NULL : p;
	p = vec_add(&tf->procs, &tf->nprocs, sizeof(*p));
	if (!p)
		return NULL;
	p->tgid = tgid;
	snprintf(path, sizeof(path), "/proc/%u/stat", tgid);
	p->gone = procstat_read(path, &ps) < 0;
	memcpy(p->comm, ps.comm, sizeof(p->comm));
	snprintf(path, sizeof(path), "/proc/%u/status", tgid);
	p->gone = p->gone || procstat_euid(path, &p->uid) < 0;
	return p->gone ? NULL : p;
}

/* Whether rq's submitter is one of `who`'s, judged as top's process rows
 * are (by the process's own name, user, cgroup, pid and tree; with -t a
 * thread's id too): 1, 0, or -1 where it cannot be told (no submitter
 * known; gone before its name, user or parent was read). */
static int submitter_chosen(struct top_files *tf, const struct iolens_rq *rq)
{
	const struct top_files_who *w = &tf->who;
	const struct proc_seen *p = NULL;
	char comm[IOLENS_COMM_LEN + 1] = "";
	bool in = !w->npids;

	frame_turn(tf);
	if (rq->ctx == IOLENS_CTX_NONE)
		return -1;
	if (w->by_cgroup && rq->cgroup != w->cgroup)
		return 0;
	for (int i = 0; i < w->npids; i++)
		in |= w->pids[i] == rq->pid || (w->threads && w->pids[i] == rq->tid);
	if (!in) {
		int below = proctree_judge(&tf->tree, rq->pid);

		if (below <= 0)
			return below;
	}
	/* The request carries its thread's name; a process's row has its
	 * leader's, read from /proc unless the leader submitted it. */
	if (w->by_uid || (w->comm && !w->threads && rq->tid != rq->pid)) {
		p = proc_of(tf, rq->pid);
		if (!p)
			return -1;
	}
	memcpy(comm, p && !w->threads ? p->comm : rq->comm, IOLENS_COMM_LEN);
	if (w->comm && !strstr(comm, w->comm))
		return 0;
	return !w->by_uid || p->uid == w->uid;
}

/* In the tracer's thread: a request of data, counted for its file. */
static int on_rq(void *ctx, const struct iolens_rq *rq)
{
	struct top_files *tf = ctx;
	struct top_file *f;
	int chosen;

	if (!rq->bytes || (rq->op != IOLENS_OP_READ && rq->op != IOLENS_OP_WRITE))
		return 0;
	chosen = tf->choosing ? submitter_chosen(tf, rq) : 1;
	if (chosen <= 0) {
		if (chosen < 0) {
			pthread_mutex_lock(&tf->lock);
			tf->unjudged++;
			pthread_mutex_unlock(&tf->lock);
		}
		return 0;
	}
	pthread_mutex_lock(&tf->lock);
	f = row_of(tf, rq);
	if (rq->op == IOLENS_OP_READ) {
		f->reads++;
		f->read_bytes += rq->bytes;
	} else {
		f->writes++;
		f->write_bytes += rq->bytes;
	}
	if (!rq->status && rq->ts_start && rq->ts_complete > rq->ts_start) {
		f->ns += rq->ts_complete - rq->ts_start;
		f->timed++;
	}
	add_proc(f, rq);
	pthread_mutex_unlock(&tf->lock);
	return 0;
}

static void *run(void *arg)
{
	struct top_files *tf = arg;

	block_trace_run(tf->bt, 0, on_rq, NULL, tf);
	return NULL;
}

struct top_files *top_files_start(const char *cmd, const __u32 *devs, int ndev,
				  const struct top_files_who *who)
{
	struct top_files *tf = calloc(1, sizeof(*tf));

	if (!tf || !(tf->tab = calloc(TABLE_SLOTS, sizeof(*tf->tab)))) {
		fprintf(stderr, "iolens %s: out of memory\n", cmd);
		free(tf);
		return NULL;
	}
	/* The tracer's thread keeps its own tree: the frame's is not
	 * shared across threads. */
	tf->who = *who;
	tf->choosing = who->npids || who->by_uid || who->comm || who->by_cgroup;
	for (int i = 0; i < who->npids; i++)
		tf->roots[i] = who->pids[i];
	proctree_init(&tf->tree, tf->roots, who->npids);
	pthread_mutex_init(&tf->lock, NULL);
	ksyms_load_for(cmd, KSYMS_NO_DIO_FILES);
	tf->bt = block_trace_start(cmd, devs, ndev, 0, BLOCK_TRACE_FILES);
	if (!tf->bt) {
		top_files_stop(tf);
		return NULL;
	}
	tf->since = mono_ns();
	if (pthread_create(&tf->thread, NULL, run, tf)) {
		fprintf(stderr, "iolens %s: cannot start the files thread\n", cmd);
		top_files_stop(tf);
		return NULL;
	}
	tf->running = true;
	return tf;
}

static __u64 bytes_of(const struct top_file *f)
{
	return f->read_bytes + f->write_bytes;
}

static int most_bytes(const void *a, const void *b)
{
	const struct top_file *x = a, *y = b;

	if (bytes_of(x) != bytes_of(y))
		return bytes_of(x) < bytes_of(y) ? 1 : -1;
	return x->id.ino < y->id.ino ? -1 : x->id.ino > y->id.ino;
}

int top_files_take(struct top_files *tf, struct top_file **v, int *n,
		   struct top_file *others, __u64 *unjudged)
{
	struct top_file *out;
	int k = 0;

	pthread_mutex_lock(&tf->lock);
	out = malloc((tf->n + 1) * sizeof(*out));
	if (!out) {
		pthread_mutex_unlock(&tf->lock);
		return -ENOMEM;
	}
	for (int i = 0; i < TABLE_SLOTS; i++)
		if (tf->tab[i].used)
			out[k++] = tf->tab[i];
	*others = tf->others;
	*unjudged = tf->unjudged;
	tf->unjudged = 0;
	__atomic_store_n(&tf->frame, tf->frame + 1, __ATOMIC_RELEASE);
	memset(tf->tab, 0, TABLE_SLOTS * sizeof(*tf->tab));
	memset(&tf->others, 0, sizeof(tf->others));
	tf->n = 0;
	pthread_mutex_unlock(&tf->lock);
	qsort(out, k, sizeof(*out), most_bytes);
	*v = out;
	*n = k;
	return 0;
}

__u64 top_files_since(const struct top_files *tf)
{
	return tf->since;
}

void top_files_stop(struct top_files *tf)
{
	if (!tf)
		return;
	if (tf->running) {
		block_trace_end(tf->bt);
		pthread_join(tf->thread, NULL);
	}
	block_trace_stop(tf->bt);
	pthread_mutex_destroy(&tf->lock);
	proctree_free(&tf->tree);
	free(tf->procs);
	free(tf->tab);
	free(tf);
}

const char *top_file_name(const struct top_file *f, char *buf, size_t len)
{
	struct iolens_rq k = f->id;
	const char *path;

	k.bytes = bytes_of(f);
	path = rqfile_path(&k);
	if (path) {
		snprintf(buf, len, "%s", path);
		return buf;
	}
	return rqfile_unnamed(&k, rqfile_kind(&k), buf, len);
}

bool top_file_matches(const struct top_file *f, const char *filter)
{
	char name[4096];

	if (!filter || !*filter || strstr(top_file_name(f, name, sizeof(name)), filter))
		return true;
	for (int i = 0; i < TOP_FILE_PROCS && f->procs[i].pid; i++)
		if (top_filter_names(f->procs[i].pid, f->procs[i].comm, filter))
			return true;
	return false;
}

const char *top_file_procs(const struct top_file *f, char *buf, size_t len)
{
	char b[32];
	size_t at = 0;

	buf[0] = 0;
	/* Room for every name escaped (SAN_TEXT_MAX), checked once. */
	if (len < TOP_FILE_PROCS_LEN)
		return buf;
	for (int i = 0; i < TOP_FILE_PROCS && f->procs[i].pid; i++) {
		if (i)
			buf[at++] = ' ';
		at += san_text(buf + at, f->procs[i].comm, strlen(f->procs[i].comm));
		at += snprintf(buf + at, len - at, "[%u]", f->procs[i].pid);
	}
	if (f->others_bytes) {
		fmt_bytes(b, sizeof(b), f->others_bytes);
		snprintf(buf + at, len - at, "%s+%s", at ? " " : "", b);
	}
	return buf;
}

const char *const top_files_header =
	"   READ/s   WRITE/s     r/s     w/s    AWAIT  PROCESSES                        FILE";

size_t top_files_row(char *buf, size_t len, const struct top_file *f, double secs)
{
	char name[4096], procs[TOP_FILE_PROCS_LEN], safe[SAN_TEXT_MAX(sizeof(name)) + 1];
	char rb[32], wb[32], lat[16];
	int n;

	fmt_bytes(rb, sizeof(rb), f->read_bytes / secs);
	fmt_bytes(wb, sizeof(wb), f->write_bytes / secs);
	if (f->timed)
		snprintf(lat, sizeof(lat), "%.2f", f->ns / 1e6 / f->timed);
	else
		snprintf(lat, sizeof(lat), "-");
	top_file_procs(f, procs, sizeof(procs));
	n = snprintf(buf, len, "%9s %9s %7.1f %7.1f %8s  %-32s ", rb, wb, f->reads / secs,
		     f->writes / secs, lat, procs);
	if (n < 0 || (size_t)n >= len)
		return len - 1;
	n += snprintf(buf + n, len - n, "%s", san_text_buf(safe, sizeof(safe),
							   top_file_name(f, name, sizeof(name))));
	return (size_t)n < len ? (size_t)n : len - 1;
}

void top_files_print(FILE *out, const struct top_file *v, int n, double secs)
{
	char line[TOP_FILES_LINE];

	fprintf(out, "%s\n", top_files_header);
	for (int i = 0; i < n; i++) {
		top_files_row(line, sizeof(line), &v[i], secs);
		fprintf(out, "%s\n", line);
	}
}

const char *top_files_unjudged(char *buf, size_t len, __u64 requests)
{
	if (!requests)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "(%llu requests not shown: their submitter could not "
			 "be told, gone or unknown)", (unsigned long long)requests);
	return buf;
}

void top_files_json(struct json *j, const struct top_file *v, int n,
		    const struct top_file *others, __u64 unjudged)
{
	json_arr_open(j, "files");
	for (int i = 0; i < n; i++) {
		const struct top_file *f = &v[i];
		struct iolens_rq k = f->id;

		k.bytes = bytes_of(f);
		json_obj_open(j, NULL);
		rqfile_json(j, &k);
		json_u64(j, "reads", f->reads);
		json_u64(j, "writes", f->writes);
		json_u64(j, "read_bytes", f->read_bytes);
		json_u64(j, "write_bytes", f->write_bytes);
		if (f->timed)
			json_u64(j, "await_ns", f->ns / f->timed);
		else
			json_null(j, "await_ns");
		json_arr_open(j, "processes");
		for (int p = 0; p < TOP_FILE_PROCS && f->procs[p].pid; p++) {
			json_obj_open(j, NULL);
			json_u64(j, "pid", f->procs[p].pid);
			json_str(j, "comm", f->procs[p].comm);
			json_u64(j, "bytes", f->procs[p].bytes);
			json_obj_close(j);
		}
		json_arr_close(j);
		json_u64(j, "others_bytes", f->others_bytes);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_u64(j, "files_others_bytes", bytes_of(others));
	json_u64(j, "files_unjudged_requests", unjudged);
}
