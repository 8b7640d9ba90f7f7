// SPDX-License-Identifier: GPL-2.0
/*
 * Every task's I/O counters, one pass per scan: bpf/tasks.bpf.c's task
 * iterator when it loads, else /proc/<pid>/task/<tid>/{stat,status,io}.
 *
 * A pass is first read whole into one reusable buffer of records, then
 * sorted oldest first and handed out: no allocation per task, and the
 * callback may take its time without holding the iterator open.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/tasks.h"
#include "tasks.skel.h"
#include "trace/tracer.h"
#include "trace/task_trace.h"
#include "trace/fdlimit.h"
#include "lib/procstat.h"
#include "trace/kfacts.h"
#include "trace/tracefs.h"
#include "lib/log.h"
#include "lib/priv.h"
#include "lib/vec.h"
#include "trace/mapmem.h"
#include "lib/smallfile.h"

/* A pass of the iterator comes back in read()s of at most the seq_file
 * buffer, 8 pages (bpf_iter_seq_info); the record buffer starts at room for
 * about a thousand tasks and doubles as the system grows. */
#define BUF_START	(1024 * sizeof(struct iolens_task_rec))
#define READ_MIN	(64 * 1024)

#define MAX_LINKS	32

/* cgroup v2 paths to ids, for the /proc fallback. */
#define CG_CACHE	32
#define CG_PATH		256

struct cg_ent {
	char path[CG_PATH];
	__u64 id;
};

struct task_trace {
	struct tasks *skel;		/* NULL: the /proc fallback */
	struct bpf_link *iter;
	struct bpf_link *exit;		/* task_exit, NULL: no exit records */
	struct ring_buffer *exits;
	struct iolens_task_rec *xrecs;	/* the exit records of the last scan */
	size_t nx, xcap;
	struct bpf_link *links[MAX_LINKS];
	int nlinks;
	bool sys;			/* syscall programs attached */
	/* The records of the last pass, and their order. */
	struct iolens_task_rec *recs;
	size_t nrec, cap;		/* cap in bytes */
	const struct iolens_task_rec **order;
	size_t ocap;
	/* /proc fallback */
	__u64 susp;			/* suspend_offset() at the first scan */
	bool susp_known;
	char cgroot[CG_PATH];		/* cgroup2 mount point, "" if none */
	struct cg_ent cg[CG_CACHE];
	unsigned int cg_next;
};

static int grow(struct task_trace *tt, size_t need)
{
	size_t cap = tt->cap ? tt->cap : BUF_START;
	void *p;

	if (need <= tt->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	p = realloc(tt->recs, cap);
	if (!p)
		return -ENOMEM;
	tt->recs = p;
	tt->cap = cap;
	return 0;
}

/* ---- the iterator ---- */

static int exit_taken(void *ctx, void *data, size_t len)
{
	struct task_trace *tt = ctx;

	if (len != sizeof(struct iolens_task_rec))
		return 0;
	if (vec_grow(&tt->xrecs, &tt->xcap, tt->nx + 1, sizeof(*tt->xrecs), 256))
		return -ENOMEM;
	memcpy(&tt->xrecs[tt->nx++], data, len);
	return 0;
}

/* The exit hook and its ring buffer; without them a scan has no exit
 * records (task_trace_exits()), which is no failure. */
static void exits_attach(struct task_trace *tt)
{
	tt->exits = ring_buffer__new(bpf_map__fd(tt->skel->maps.exits), exit_taken, tt, NULL);
	if (tt->exits)
		tt->exit = bpf_program__attach(tt->skel->progs.task_exit);
	if (!tt->exit) {
		ring_buffer__free(tt->exits);
		tt->exits = NULL;
	}
}

/* Loads the iterator, and with `sys` the syscall programs; attaches the
 * iterator.  0 or -errno, and tt->skel is NULL on failure; -EMFILE when
 * the open-file limit is too low, said for `cmd` (NULL: not said). */
static int bpf_load(const char *cmd, struct task_trace *tt, bool sys)
{
	const struct kfacts *kf = kfacts_get();
	struct bpf_program *p;
	int err;

	tt->skel = tasks__open();
	if (!tt->skel)
		return -errno;
	bpf_object__for_each_program(p, tt->skel->obj)
		if (p != tt->skel->progs.task_rec && p != tt->skel->progs.task_exit)
			bpf_program__set_autoload(p, sys);
	tt->skel->rodata->have_rdonly_cast = kf->rdonly_cast;
	tt->skel->rodata->have_io_start = kf->io_start_done;
	/* Read-modify-write reads where the request starts, or before
	 * Linux 6.5 where it is issued. */
	bpf_program__set_autoload(tt->skel->progs.task_rmw, sys && kf->io_start_done);
	bpf_program__set_autoload(tt->skel->progs.task_rmw_issue,
				  sys && !kf->io_start_done);
	/* Without syscall counting the histograms stay empty: one entry
	 * instead of IOLENS_SC_NR per CPU (9 KiB each). */
	err = sys ? 0 : bpf_map__set_max_entries(tt->skel->maps.sys_hists, 1);
	/* With the iterator's file of each scan. */
	err = err ?: fdlimit_ensure(cmd, tt->skel->obj, 1);
	err = err ?: tasks__load(tt->skel);
	if (!err) {
		tt->iter = bpf_program__attach_iter(tt->skel->progs.task_rec, NULL);
		if (!tt->iter)
			err = -errno;
	}
	if (err) {
		tasks__destroy(tt->skel);
		tt->skel = NULL;
		return err;
	}
	exits_attach(tt);
	return 0;
}

static void sys_detach(struct task_trace *tt)
{
	if (tt->skel && tt->skel->bss)
		tt->skel->bss->sys_on = 0;
	while (tt->nlinks)
		bpf_link__destroy(tt->links[--tt->nlinks]);
	tt->sys = false;
}

/*
 * The thread exit hook is attached with the iterator (bpf_load()), before
 * these, so that no counted thread leaves without its counters reaching its
 * leader; then the syscall exits, then the entries: an exit without its
 * entry is ignored, an entry without an exit would be left pending.
 */
static int sys_attach(struct task_trace *tt)
{
	struct bpf_program *p;
	int pass, err;

	if (!tt->exit)
		return -ENOENT;
	for (pass = 1; pass < 3; pass++) {
		bpf_object__for_each_program(p, tt->skel->obj) {
			const char *sec = bpf_program__section_name(p);
			int want;

			if (p == tt->skel->progs.task_rec || p == tt->skel->progs.task_exit ||
			    !bpf_program__autoload(p))
				continue;
			if (strstr(sec, "/sys_exit_"))
				want = 1;
			else
				want = 2;
			if (want != pass)
				continue;
			if (tt->nlinks == MAX_LINKS)
				return -E2BIG;
			tt->links[tt->nlinks] = bpf_program__attach(p);
			if (!tt->links[tt->nlinks]) {
				err = -errno;
				sys_detach(tt);
				return err;
			}
			tt->nlinks++;
		}
	}
	tt->sys = true;
	tt->skel->bss->sys_on = 1;
	return 0;
}

static int bpf_start(struct task_trace *tt, const char *cmd, bool sys)
{
	int err = -EINVAL;

	if (sys) {
		/* Syscall events are tracefs events: libbpf reads their ids
		 * there. */
		err = tracefs_ensure(NULL);
		if (err)
			fprintf(stderr, "iolens %s: tracefs is not mounted and could not be mounted at %s: %s\n",
				cmd, TRACEFS_DIR, strerror(-err));
		else
			err = bpf_load(cmd, tt, true);
		/* Said, and without the syscalls it needs little less. */
		if (err == -EMFILE)
			return err;
		if (!err)
			err = sys_attach(tt);
		if (err)
			fprintf(stderr, "iolens %s: syscall tracepoints unavailable: %s: no syscall-level counters (see 'iolens doctor'; -v shows libbpf's log)\n",
				cmd, strerror(-err));
		if (!err || tt->skel)
			return 0;
	}
	return bpf_load(cmd, tt, false);
}

static int cmp_age(const void *a, const void *b)
{
	const struct iolens_task_rec *x = *(const struct iolens_task_rec *const *)a;
	const struct iolens_task_rec *y = *(const struct iolens_task_rec *const *)b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int bpf_scan(struct task_trace *tt)
{
	size_t len = 0;
	ssize_t n;
	int fd, err = 0;

	fd = bpf_iter_create(bpf_link__fd(tt->iter));
	if (fd < 0)
		return -errno;
	for (;;) {
		if (tt->cap - len < READ_MIN && (err = grow(tt, len + READ_MIN)))
			break;
		n = read(fd, (char *)tt->recs + len, tt->cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* EAGAIN: the iterator restarted, e.g. a task it held
			 * went away; a partial pass is not a pass. */
			err = -errno;
			break;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	tt->nrec = err ? 0 : len / sizeof(struct iolens_task_rec);
	return err;
}

/* ---- the /proc fallback ---- */

/* /proc/<pid>/io: seven "name: value" lines in struct iolens_ioac order. */
static int parse_io(const char *path, struct iolens_ioac *io)
{
	__u64 *v = (__u64 *)io;
	char buf[512], *p = buf;
	size_t i;

	if (smallfile_read(path, buf, sizeof(buf)) < 0)
		return -1;
	for (i = 0; i < sizeof(*io) / sizeof(__u64); i++) {
		p = strchr(p, ':');
		if (!p)
			return -1;
		v[i] = strtoull(p + 1, &p, 10);
	}
	return 0;
}

static void cgroot_find(struct task_trace *tt)
{
	char buf[8192], *line, *save;
	char dev[64], mnt[CG_PATH], type[32];

	if (smallfile_read("/proc/self/mounts", buf, sizeof(buf)) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s %255s %31s", dev, mnt, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(tt->cgroot, sizeof(tt->cgroot), "%s", mnt);
			return;
		}
	}
}

/* The cgroup2 id of a /proc/.../cgroup file: the inode number of the
 * cgroup's directory, as kernfs numbers it (kn->id on 64-bit). */
static __u64 proc_cgroup(struct task_trace *tt, const char *path)
{
	char buf[CG_PATH + 64], full[2 * CG_PATH], *p, *nl;
	struct cg_ent *e;
	struct stat st;

	if (!tt->cgroot[0] || smallfile_read(path, buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "0::");
	if (!p)
		return 0;
	p += 3;
	nl = strchr(p, '\n');
	if (nl)
		*nl = '\0';
	for (int i = 0; i < CG_CACHE; i++)
		if (tt->cg[i].id && !strcmp(tt->cg[i].path, p))
			return tt->cg[i].id;
	snprintf(full, sizeof(full), "%s%s", tt->cgroot, p);
	if (stat(full, &st))
		return 0;
	e = &tt->cg[tt->cg_next++ % CG_CACHE];
	snprintf(e->path, sizeof(e->path), "%s", p);
	e->id = st.st_ino;
	return e->id;
}

/* /proc's start times are boot-time clock ticks; task->start_time is
 * CLOCK_MONOTONIC.  Returns boottime - monotonic (time spent suspended);
 * monotonic is read first, so that without suspend the two reads cannot
 * make it negative. */
static __u64 suspend_offset(void)
{
	struct timespec b, m;
	__s64 d;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_BOOTTIME, &b);
	d = (__s64)(b.tv_sec - m.tv_sec) * 1000000000LL + b.tv_nsec - m.tv_nsec;
	return d > 0 ? d : 0;
}

/* One thread from /proc/<pid>/task/<tid>/; 0, or -1 if it went away. */
static int proc_thread(struct task_trace *tt, __u32 pid, __u32 tid,
		       struct iolens_task_rec *r, __u64 tick_ns, __u64 susp)
{
	char path[64];
	struct procstat ps;
	int n;

	memset(r, 0, sizeof(*r));
	r->tid = tid;
	r->tgid = pid;
	n = snprintf(path, sizeof(path), "/proc/%u/task/%u/", pid, tid);
	strcpy(path + n, "stat");
	if (procstat_read(path, &ps))
		return -1;
	memcpy(r->comm, ps.comm, IOLENS_COMM_LEN);
	if (ps.flags & KERNEL_PF_KTHREAD)
		r->flags |= IOLENS_TASK_KTHREAD;
	r->ppid = ps.ppid;
	/* Whole ticks only, and no swap-in time: /proc has neither. */
	r->delay.blkio_ns = ps.blkio_ticks * tick_ns;
	r->flags |= IOLENS_TASK_BLKIO;
	r->start_ns = ps.starttime * tick_ns > susp ? ps.starttime * tick_ns - susp : 0;

	strcpy(path + n, "status");
	procstat_euid(path, &r->uid);
	strcpy(path + n, "cgroup");
	r->cgroup = proc_cgroup(tt, path);
	strcpy(path + n, "io");
	if (parse_io(path, &r->io))
		return -1;
	return 0;
}

/*
 * The threads of a process first, then /proc/<pid>/io: that is signal->ioac
 * plus every live thread's ioac at that later moment, so `dead` below is
 * never negative, and the process's sum of records equals /proc/<pid>/io as
 * read.
 */
static int proc_process(struct task_trace *tt, __u32 pid, __u64 tick_ns,
			__u64 susp)
{
	struct iolens_task_rec *r, *leader = NULL;
	struct iolens_ioac whole, sum = { 0 };
	char path[64];
	size_t first = tt->nrec;
	struct dirent *e;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	d = opendir(path);
	if (!d)
		return 0;	/* exited meanwhile */
	while ((e = readdir(d))) {
		char *end;
		unsigned long tid = strtoul(e->d_name, &end, 10);

		if (*end || !tid)
			continue;
		err = grow(tt, (tt->nrec + 1) * sizeof(*r));
		if (err)
			break;
		r = &tt->recs[tt->nrec];
		if (proc_thread(tt, pid, tid, r, tick_ns, susp))
			continue;
		tt->nrec++;
	}
	closedir(d);
	if (err)
		return err;
	for (size_t i = first; i < tt->nrec; i++) {
		const __u64 *v = (const __u64 *)&tt->recs[i].io;
		__u64 *s = (__u64 *)&sum;

		if (tt->recs[i].tid == pid)
			leader = &tt->recs[i];
		for (size_t k = 0; k < sizeof(sum) / sizeof(__u64); k++)
			s[k] += v[k];
	}
	snprintf(path, sizeof(path), "/proc/%u/io", pid);
	if (leader && !parse_io(path, &whole)) {
		const __u64 *w = (const __u64 *)&whole, *s = (const __u64 *)&sum;
		__u64 *dead = (__u64 *)&leader->dead;

		for (size_t k = 0; k < sizeof(sum) / sizeof(__u64); k++)
			dead[k] = w[k] > s[k] ? w[k] - s[k] : 0;
	}
	return 0;
}

static int proc_scan(struct task_trace *tt)
{
	__u64 tick_ns = 1000000000ULL / sysconf(_SC_CLK_TCK);
	__u64 susp;
	struct dirent *e;
	DIR *d;
	int err = 0;

	/* Once: the two clock reads differ by some ns each time, and a start
	 * time that moves makes the same task look like a new one. */
	if (!tt->susp_known) {
		tt->susp = suspend_offset();
		tt->susp_known = true;
	}
	susp = tt->susp;

	tt->nrec = 0;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while (!err && (e = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);

		if (*end || !pid)
			continue;
		err = proc_process(tt, pid, tick_ns, susp);
	}
	closedir(d);
	if (err)
		tt->nrec = 0;
	return err;
}

/* ---- API ---- */

struct task_trace *task_trace_start(const char *cmd,
				    const struct task_trace_opts *o)
{
	const char *force = getenv("IOLENS_TASKS");
	struct task_trace *tt;
	int err = 0;

	if (priv_check_tracing(cmd))
		return NULL;
	/* IOLENS_TASKS=proc forces the fallback (tests, or a kernel whose
	 * iterator misbehaves); =iter refuses to fall back. */
	if (force && strcmp(force, "iter") && strcmp(force, "proc")) {
		fprintf(stderr, "iolens %s: IOLENS_TASKS must be iter or proc, not '%s'\n",
			cmd, force);
		return NULL;
	}
	tt = calloc(1, sizeof(*tt));
	if (!tt) {
		fprintf(stderr, "iolens %s: %s\n", cmd, strerror(ENOMEM));
		return NULL;
	}
	if (grow(tt, BUF_START)) {
		fprintf(stderr, "iolens %s: %s\n", cmd, strerror(ENOMEM));
		task_trace_stop(tt);
		return NULL;
	}
	if (!force || !strcmp(force, "iter"))
		err = bpf_start(tt, cmd, o && o->syscalls);
	if (!err && tt->skel)
		mapmem_say(cmd, "the task scan", tt->skel->obj, NULL, 0);
	/* The limit is the user's to raise, not a reason to read /proc. */
	if (err == -EMFILE) {
		long need, limit;

		if (!fdlimit_refused(&need, &limit))
			fprintf(stderr, "iolens %s: cannot load the task iterator: %s\n",
				cmd, strerror(-err));
		task_trace_stop(tt);
		return NULL;
	}
	if (force && !strcmp(force, "iter") && err) {
		tracer_load_failed(cmd, "load the task iterator", err);
		task_trace_stop(tt);
		return NULL;
	}
	if (!tt->skel) {
		if (o && o->syscalls && !err)	/* forced to /proc */
			fprintf(stderr, "iolens %s: reading /proc: no syscall-level counters\n",
				cmd);
		cgroot_find(tt);
	}
	return tt;
}

const char *task_trace_source(const struct task_trace *tt)
{
	return tt->skel ? "iter/task" : "/proc";
}

bool task_trace_syscalls(const struct task_trace *tt)
{
	return tt->sys;
}

bool task_trace_sys_skipped(const struct task_trace *tt, __u64 *n)
{
	struct bpf_program *p;

	*n = 0;
	if (!tt->sys || !kfacts_get()->tp_misses_counted)
		return false;
	bpf_object__for_each_program(p, tt->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (!strncmp(bpf_program__section_name(p), "tracepoint/syscalls/", 20) &&
		    bpf_program__fd(p) >= 0 &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			*n += info.recursion_misses;
	}
	return true;
}

int task_trace_scan(struct task_trace *tt,
		    void (*fn)(const struct iolens_task_rec *r, void *arg),
		    void *arg)
{
	size_t i;
	int err;

	err = tt->skel ? bpf_scan(tt) : proc_scan(tt);
	if (err)
		return err;
	/* After the pass: a thread the pass did not see had exited before
	 * it, and its record is in the ring buffer by now. */
	tt->nx = 0;
	if (tt->exits && ring_buffer__consume(tt->exits) < 0)
		return -ENOMEM;
	if (tt->nrec > tt->ocap) {
		size_t n = tt->nrec + tt->nrec / 4;
		const struct iolens_task_rec **o = realloc(tt->order, n * sizeof(*o));

		if (!o)
			return -ENOMEM;
		tt->order = o;
		tt->ocap = n;
	}
	for (i = 0; i < tt->nrec; i++)
		tt->order[i] = &tt->recs[i];
	/* The iterator walks tids in order, /proc lists them so too; tids
	 * wrap, age does not, and a leader is always older than its threads. */
	vec_sort(tt->order, tt->nrec, sizeof(*tt->order), cmp_age);
	for (i = 0; i < tt->nrec; i++)
		fn(tt->order[i], arg);
	for (i = 0; i < tt->nx; i++)
		fn(&tt->xrecs[i], arg);
	return 0;
}

bool task_trace_exits(const struct task_trace *tt, __u64 *lost)
{
	*lost = tt->exits ? tt->skel->bss->exits_lost : 0;
	return tt->exits;
}

void task_trace_sys_hist(const struct task_trace *tt, int sc,
			 __u64 out[HIST_BUCKETS])
{
	struct iolens_hist h;
	__u32 key = sc;

	memset(out, 0, HIST_BUCKETS * sizeof(__u64));
	if (!tt->sys || sc < 0 || sc >= IOLENS_SC_NR ||
	    bpf_map_lookup_elem(bpf_map__fd(tt->skel->maps.sys_hists), &key, &h))
		return;
	for (__u32 b = 0; b < HIST_BUCKETS; b++)
		out[b] = h.b[b];
}

void task_trace_stop(struct task_trace *tt)
{
	if (!tt)
		return;
	sys_detach(tt);
	bpf_link__destroy(tt->exit);
	ring_buffer__free(tt->exits);
	bpf_link__destroy(tt->iter);
	tasks__destroy(tt->skel);
	free(tt->xrecs);
	free(tt->recs);
	free(tt->order);
	free(tt);
}

int task_trace_probe(bool *exits)
{
	struct task_trace tt = { 0 };
	char buf[4096];
	int err, fd;
	ssize_t n;

	err = bpf_load(NULL, &tt, false);
	if (err)
		return err;
	fd = bpf_iter_create(bpf_link__fd(tt.iter));
	if (fd < 0) {
		err = -errno;
	} else {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		if (n < 0)
			err = -errno;
		close(fd);
	}
	*exits = tt.exit;
	bpf_link__destroy(tt.exit);
	ring_buffer__free(tt.exits);
	bpf_link__destroy(tt.iter);
	tasks__destroy(tt.skel);
	return err;
}

__u64 task_trace_memory(void)
{
	struct tasks *skel = tasks__open();
	__u64 bytes = skel ? mapmem_of_maps(skel->obj) : 0;

	tasks__destroy(skel);
	return bytes;
}

const void *task_trace_elf(size_t *sz)
{
	return tasks__elf_bytes(sz);
}
