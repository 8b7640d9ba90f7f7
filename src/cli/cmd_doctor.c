// SPDX-License-Identifier: GPL-2.0
/*
 * iolens doctor: what this kernel and this user can do.
 *
 * Every program-type check loads a real two-instruction program and, where it
 * is cheap, attaches it for an instant: feature lists and config files have
 * been wrong on these machines (fentry is configured in but refused with
 * EPERM), a load is not.  Nothing here calls a libbpf function that prints;
 * libbpf's own log stays behind -v as everywhere else.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "cli/commands.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/opts.h"
#include "lib/priv.h"
#include "trace/task_trace.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC	0x74726163
#endif

#define BTF_PATH	"/sys/kernel/btf/vmlinux"
#define TRACEFS		"/sys/kernel/tracing"
#define KPROBE_PMU	"/sys/bus/event_source/devices/kprobe"

enum status { ST_OK, ST_MISSING, ST_FALLBACK, ST_NOPRIV };

static const char *const status_name[] = {
	[ST_OK]		= "ok",
	[ST_MISSING]	= "missing",
	[ST_FALLBACK]	= "fallback",
	[ST_NOPRIV]	= "no-privilege",
};

struct row {
	char check[32];
	enum status status;
	char detail[80];
	char consequence[128];
};

#define MAX_ROWS	64
/* Disks whose issue-stamp path is shown, at most. */
#define MAX_DISK_ROWS	8
#define MAX_BLOCKERS	8

struct doctor {
	struct btf *btf;		/* vmlinux BTF, NULL if unreadable */
	bool tracefs;			/* mounted and readable by us */
	bool may_load;			/* privileges to load tracing programs */
	struct row rows[MAX_ROWS];
	int nrows;
	/* What snoop/record need, collected while checking. */
	const char *blockers[MAX_BLOCKERS];
	int nblockers;
	const char *attach;		/* "tp_btf", "raw_tp" or NULL */
	bool unprobed;			/* a needed check lacked privileges */
};

static const char *errno_name(int err)
{
	static char buf[24];
	const char *s = strerrorname_np(err);

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

static struct row *add_row(struct doctor *d, const char *check,
			   enum status st, const char *consequence,
			   const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static struct row *add_row(struct doctor *d, const char *check,
			   enum status st, const char *consequence,
			   const char *fmt, ...)
{
	static struct row overflow;
	struct row *r;
	va_list ap;

	/* The check list is fixed, so overflowing is a bug here: keep going
	 * on a scratch row rather than crash a diagnostic tool. */
	r = d->nrows < MAX_ROWS ? &d->rows[d->nrows++] : &overflow;
	snprintf(r->check, sizeof(r->check), "%s", check);
	r->status = st;
	snprintf(r->consequence, sizeof(r->consequence), "%s", consequence);
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
	return r;
}

static void block_snoop(struct doctor *d, const char *why)
{
	if (d->nblockers < MAX_BLOCKERS)
		d->blockers[d->nblockers++] = why;
}

static bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* ---- kernel, BTF, privileges, tracefs ---- */

static void check_kernel(struct doctor *d, const struct utsname *u)
{
	unsigned int major = 0, minor = 0;
	const char *what;

	sscanf(u->release, "%u.%u", &major, &minor);
	/* The feature floors below are the kernels that added them. */
	if (major < 5 || (major == 5 && minor < 8))
		what = "older than 5.8: no ring buffer, no CAP_BPF, no iter/task";
	else if (major < 6 || (major == 6 && minor < 5))
		what = "older than 6.5: no block_io_start, submitter seen at insert/issue";
	else
		what = "new enough for every feature iolens uses";
	add_row(d, "kernel", ST_OK, what, "%s %s", u->release, u->machine);
}

static void check_btf(struct doctor *d)
{
	struct stat st;

	if (stat(BTF_PATH, &st)) {
		add_row(d, "btf", ST_MISSING, "no CO-RE: iolens cannot run",
			"%s: %s", BTF_PATH, errno_name(errno));
		block_snoop(d, "no kernel BTF");
		return;
	}
	d->btf = btf__load_vmlinux_btf();
	if (!d->btf) {
		add_row(d, "btf", ST_MISSING, "no CO-RE: iolens cannot run",
			"%s unreadable: %s", BTF_PATH, errno_name(errno));
		block_snoop(d, "kernel BTF unreadable");
		return;
	}
	add_row(d, "btf", ST_OK, "CO-RE relocations and BTF-typed tracepoints",
		"%s, %u types", BTF_PATH, btf__type_cnt(d->btf));
}

static void check_privileges(struct doctor *d)
{
	uid_t euid = geteuid();
	bool admin = priv_has_cap(CAP_SYS_ADMIN);
	bool bpf = priv_has_cap(CAP_BPF);
	bool perfmon = priv_has_cap(CAP_PERFMON);
	const char *nopriv = euid ?
		"cannot load BPF programs: snoop/record need sudo" :
		"cannot load BPF programs: this root lacks the capabilities";

	d->may_load = priv_can_load_bpf();

	if (euid == 0)
		add_row(d, "root", ST_OK,
			"tracefs readable (mode 0700, owned by root)", "euid 0");
	else
		add_row(d, "root", d->may_load ? ST_FALLBACK : ST_NOPRIV,
			d->may_load ? "not root, but the capabilities suffice" :
				      nopriv,
			"euid %u", (unsigned int)euid);

	add_row(d, "CAP_SYS_ADMIN", admin ? ST_OK : ST_NOPRIV,
		admin ? "implies CAP_BPF and CAP_PERFMON (the only way before 5.8)" :
			bpf && perfmon ? "not needed: CAP_BPF and CAP_PERFMON suffice since 5.8" :
					 "not needed if CAP_BPF and CAP_PERFMON are held",
		"%s", admin ? "effective" : "not held");
	add_row(d, "CAP_BPF", bpf ? ST_OK : admin ? ST_FALLBACK : ST_NOPRIV,
		bpf ? "load programs, create maps" :
		admin ? "CAP_SYS_ADMIN covers it" : nopriv,
		"%s", bpf ? "effective" : "not held");
	add_row(d, "CAP_PERFMON", perfmon ? ST_OK : admin ? ST_FALLBACK : ST_NOPRIV,
		perfmon ? "tracing programs may read kernel memory" :
		admin ? "CAP_SYS_ADMIN covers it" : nopriv,
		"%s", perfmon ? "effective" : "not held");
}

static void check_tracefs(struct doctor *d)
{
	struct statfs sfs;

	if (statfs(TRACEFS, &sfs) || (unsigned long)sfs.f_type != TRACEFS_MAGIC) {
		add_row(d, "tracefs", ST_MISSING,
			"no ground truth for tests; syscall tracepoints need it (or debugfs) for event ids",
			"%s not mounted", TRACEFS);
		return;
	}
	/* Mode 0700 by default: mounted is not the same as usable. */
	if (access(TRACEFS "/events", R_OK | X_OK)) {
		add_row(d, "tracefs", ST_NOPRIV,
			"tracepoints checked in BTF only",
			"%s mounted, %s", TRACEFS, errno_name(errno));
		return;
	}
	d->tracefs = true;
	add_row(d, "tracefs", ST_OK,
		"informational: tests use its events as ground truth",
		"%s", TRACEFS);
}

/* ---- tracepoints ---- */

struct tp_check {
	const char *sys;
	const char *name;
	bool needed;		/* snoop/record cannot run without it */
	bool fallback;		/* absence degrades instead of disabling */
	const char *present;
	const char *absent;
};

static const struct tp_check tp_checks[] = {
	/* block_io_start: added in Linux 6.5 ("block: introduce
	 * block_io_start/block_io_done tracepoints"). */
	{ "block", "block_io_start", false, true,
	  "submitter taken at submission",
	  "submitter taken at insert/issue instead of submission: "
	  "kworker may be shown for requests a process submitted" },
	{ "block", "block_rq_insert", false, true,
	  "insert time: scheduler queue time",
	  "no insert time: queue time from the request's own timestamps only" },
	{ "block", "block_rq_issue", true, false,
	  "issue time, size, sector, queue depth",
	  "snoop/record cannot run" },
	{ "block", "block_rq_complete", true, false,
	  "completion: queue and device time",
	  "snoop/record cannot run" },
	{ "block", "block_rq_requeue", false, false,
	  "requeues counted",
	  "requeues not counted" },
	{ "block", "block_rq_merge", false, false,
	  "request merges counted",
	  "request merges not counted" },
	{ "block", "block_bio_queue", false, false,
	  "bio submissions counted",
	  "bio submissions not counted" },
	{ "block", "block_bio_backmerge", false, false,
	  "bio back merges counted",
	  "bio back merges not counted" },
	{ "block", "block_bio_frontmerge", false, false,
	  "bio front merges counted",
	  "bio front merges not counted" },
	{ "syscalls", "sys_enter_read", false, false,
	  "syscall-level read rates (later features)",
	  "no syscall-level read rates (later features)" },
	{ "syscalls", "sys_exit_read", false, false,
	  "syscall-level read rates (later features)",
	  "no syscall-level read rates (later features)" },
};

static bool btf_has(const struct btf *btf, const char *name, __u32 kind)
{
	return btf && btf__find_by_name_kind(btf, name, kind) > 0;
}

static void check_tracepoint(struct doctor *d, const struct tp_check *c)
{
	char check[32], name[64], path[128];
	bool in_btf, in_tracefs = false, ok;
	bool syscalls = !strcmp(c->sys, "syscalls");
	const char *btf_word, *fs_word;
	enum status st;

	snprintf(check, sizeof(check), "%s:%s", c->sys, c->name);
	if (syscalls) {
		/* Per-syscall events are ftrace-only (CONFIG_FTRACE_SYSCALLS):
		 * BTF has no btf_trace_sys_enter_read, only the handler that
		 * serves them all, so BTF can only say they are built in. */
		in_btf = btf_has(d->btf, "ftrace_syscall_enter", BTF_KIND_FUNC);
	} else {
		snprintf(name, sizeof(name), "btf_trace_%s", c->name);
		in_btf = btf_has(d->btf, name, BTF_KIND_TYPEDEF);
	}
	btf_word = in_btf ? "yes" : d->btf ? "no" : "unknown";
	if (d->tracefs) {
		snprintf(path, sizeof(path), TRACEFS "/events/%s/%s",
			 c->sys, c->name);
		in_tracefs = path_exists(path);
		fs_word = in_tracefs ? "yes" : "no";
	} else {
		fs_word = "not readable";
	}

	/* A block tracepoint in BTF is what tp_btf attaches to; one only in
	 * tracefs still serves raw_tp.  For syscalls tracefs is the real
	 * answer whenever it can be read. */
	if (syscalls && d->tracefs)
		ok = in_tracefs;
	else
		ok = in_btf || in_tracefs;
	if (ok)
		st = ST_OK;
	else if (!d->btf && !d->tracefs)
		st = ST_NOPRIV;		/* nothing to look at: cannot tell */
	else
		st = c->fallback ? ST_FALLBACK : ST_MISSING;

	if (c->needed && st == ST_NOPRIV)
		d->unprobed = true;
	else if (c->needed && st != ST_OK)
		block_snoop(d, c->name);
	add_row(d, check, st, st == ST_OK ? c->present : c->absent,
		"%s %s, tracefs %s", syscalls ? "FTRACE_SYSCALLS" : "BTF",
		btf_word, fs_word);
}

/* ---- program types ---- */

/* r0 = 0; exit: the smallest program every type checked here accepts, so a
 * failure is about the type or the attach point, never the code. */
static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

/* Result of one probe: a load error, or an attach error after a good load. */
struct probe {
	int load_err;		/* errno, 0 = loaded */
	int attach_err;		/* errno, 0 = attached (or not tried) */
	bool attached;
	const char *note;	/* why the probe could not even start */
	const char *ok_detail;	/* detail on success, instead of "loaded" */
	const char *verb;	/* what failed first: "load" unless set */
};

static int load(enum bpf_prog_type type, enum bpf_attach_type eat,
		__u32 btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		.expected_attach_type = eat,
		.attach_btf_id = btf_id,
	);
	int fd;

	fd = bpf_prog_load(type, NULL, "GPL", ret0,
			   sizeof(ret0) / sizeof(ret0[0]), &opts);
	return fd < 0 ? -errno : fd;
}

static __s32 btf_id_of(const struct doctor *d, const char *name, __u32 kind)
{
	return d->btf ? btf__find_by_name_kind(d->btf, name, kind) : -ENOENT;
}

/* Classic tracepoint: attached through a perf event on one CPU, the way
 * libbpf does it, with the event id from tracefs. */
static struct probe probe_tracepoint(const struct doctor *d)
{
	struct probe p = { 0 };
	struct perf_event_attr attr;
	char buf[32];
	int fd, pfd, idfd;
	ssize_t n;

	fd = load(BPF_PROG_TYPE_TRACEPOINT, 0, 0);
	if (fd < 0) {
		p.load_err = -fd;
		return p;
	}
	if (!d->tracefs) {
		p.ok_detail = "loaded; attach needs tracefs";
		goto out;
	}
	idfd = open(TRACEFS "/events/block/block_rq_complete/id",
		    O_RDONLY | O_CLOEXEC);
	if (idfd < 0)
		goto out;
	n = read(idfd, buf, sizeof(buf) - 1);
	close(idfd);
	if (n <= 0)
		goto out;
	buf[n] = '\0';

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = strtoull(buf, NULL, 10);
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	pfd = syscall(SYS_perf_event_open, &attr, -1, 0, -1,
		      PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0) {
		p.attach_err = errno;
		goto out;
	}
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, fd))
		p.attach_err = errno;
	else
		p.attached = true;
	close(pfd);
out:
	close(fd);
	return p;
}

static struct probe probe_raw_tp(void)
{
	struct probe p = { 0 };
	int fd, lfd;

	fd = load(BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0);
	if (fd < 0) {
		p.load_err = -fd;
		return p;
	}
	lfd = bpf_raw_tracepoint_open("block_rq_complete", fd);
	if (lfd < 0) {
		p.attach_err = errno;
	} else {
		p.attached = true;
		close(lfd);
	}
	close(fd);
	return p;
}

/*
 * BTF-typed programs (tp_btf, iter, fentry) name their attach point by a BTF
 * id at load time; `attach` says how to attach the loaded program.
 */
enum btf_attach { ATTACH_RAW_TP, ATTACH_ITER, ATTACH_LINK };

static struct probe probe_btf_prog(const struct doctor *d,
				   enum bpf_attach_type eat, const char *target,
				   __u32 kind, enum btf_attach how)
{
	struct probe p = { 0 };
	__s32 id = btf_id_of(d, target, kind);
	int fd, lfd, ifd;
	char buf[64];

	if (id <= 0) {
		p.load_err = ENOENT;
		p.note = d->btf ? "target not in BTF" : "no BTF";
		return p;
	}
	fd = load(BPF_PROG_TYPE_TRACING, eat, id);
	if (fd < 0) {
		p.load_err = -fd;
		return p;
	}
	switch (how) {
	case ATTACH_RAW_TP:
		/* The attach point was given at load: no name here. */
		lfd = bpf_raw_tracepoint_open(NULL, fd);
		break;
	default:
		lfd = bpf_link_create(fd, 0, eat, NULL);
		break;
	}
	if (lfd < 0) {
		p.attach_err = errno;
		close(fd);
		return p;
	}
	p.attached = true;
	if (how == ATTACH_ITER) {
		/* Walk every task once: the program prints nothing, so this
		 * is one read returning 0. */
		ifd = bpf_iter_create(lfd);
		if (ifd < 0) {
			p.attach_err = errno;
			p.attached = false;
		} else {
			while (read(ifd, buf, sizeof(buf)) > 0)
				;
			close(ifd);
		}
	}
	close(lfd);
	close(fd);
	return p;
}

static struct probe probe_kprobe(void)
{
	struct probe p = { 0 };
	int fd;

	fd = load(BPF_PROG_TYPE_KPROBE, 0, 0);
	if (fd < 0)
		p.load_err = -fd;
	else
		close(fd);
	return p;
}

/*
 * Turns a probe into a row.  EPERM/EACCES without the privileges to load
 * means "we could not tell", with them it means the kernel refuses (an LSM
 * or lockdown), which is as good as missing.
 */
static enum status probe_row(struct doctor *d, const char *check,
			     const struct probe *p, enum status absent,
			     const char *ok_conseq, const char *absent_conseq)
{
	const char *verb = p->verb ? p->verb : "load";
	bool perm;
	int err;

	if (!p->load_err && !p->attach_err) {
		add_row(d, check, ST_OK, ok_conseq, "%s",
			p->ok_detail ? p->ok_detail :
			p->attached ? "loaded and attached" : "loaded");
		return ST_OK;
	}
	err = p->load_err ? p->load_err : p->attach_err;
	perm = err == EPERM || err == EACCES;
	if (perm && !d->may_load) {
		add_row(d, check, ST_NOPRIV, "unknown: rerun as root to check",
			"%s: %s", p->load_err ? verb : "attach",
			errno_name(err));
		return ST_NOPRIV;
	}
	add_row(d, check, absent, absent_conseq, "%s: %s%s%s%s",
		p->load_err ? verb : "loaded; attach", errno_name(err),
		p->note ? " (" : "", p->note ? p->note : "",
		p->note ? ")" : perm ? " even with privileges" : "");
	return absent;
}

/* The iterator `iolens top` really loads: beyond the bare program above,
 * its CO-RE reads of task->ioac and signal->ioac must relocate. */
static void check_top_source(struct doctor *d)
{
	int err;

	if (!d->may_load) {
		add_row(d, "top source", ST_NOPRIV, "unknown: rerun as root to check",
			"not loaded");
		return;
	}
	err = task_trace_probe();
	if (err)
		add_row(d, "top source", ST_FALLBACK,
			"top reads /proc/<pid>/task/<tid>/io: slower, no syscall-level counters",
			"/proc fallback: %s", errno_name(-err));
	else
		add_row(d, "top source", ST_OK,
			"top reads every thread's I/O counters in one pass",
			"iter/task");
}

static void check_programs(struct doctor *d)
{
	struct probe tp, raw, btf, iter, kp, fentry;
	enum status st_btf, st_raw;
	bool pmu, kprobe_events;

	tp = probe_tracepoint(d);
	probe_row(d, "tracepoint", &tp, ST_MISSING,
		  "syscall tracepoints (later features)",
		  "no syscall-level rates; block tracing unaffected");

	/* tp_btf: 5.5; attached by BTF id, arguments typed (struct request *). */
	btf = probe_btf_prog(d, BPF_TRACE_RAW_TP, "btf_trace_block_rq_complete",
			     BTF_KIND_TYPEDEF, ATTACH_RAW_TP);
	/* raw_tp: 4.17; the fallback, untyped u64 arguments. */
	raw = probe_raw_tp();

	/* The consequence of each depends on the other, so decide first. */
	st_btf = btf.load_err || btf.attach_err ? ST_MISSING : ST_OK;
	st_raw = raw.load_err || raw.attach_err ? ST_MISSING : ST_OK;
	probe_row(d, "tp_btf", &btf, st_raw == ST_OK ? ST_FALLBACK : ST_MISSING,
		  "used for the block tracepoints",
		  st_raw == ST_OK ? "raw_tp fallback (slightly slower)" :
				    "snoop/record cannot run");
	probe_row(d, "raw_tp", &raw, ST_MISSING,
		  st_btf == ST_OK ? "available as fallback for tp_btf" :
				    "used for the block tracepoints",
		  st_btf == ST_OK ? "no fallback if tp_btf breaks (not needed here)" :
				    "snoop/record cannot run");
	if (st_btf == ST_OK)
		d->attach = "tp_btf";
	else if (st_raw == ST_OK)
		d->attach = "raw_tp";
	else if (d->may_load)
		block_snoop(d, "neither tp_btf nor raw_tp works");
	else
		d->unprobed = true;

	/* iter/task: 5.8 ("bpf: Add task and task/file iterators"). */
	iter = probe_btf_prog(d, BPF_TRACE_ITER, "bpf_iter_task",
			      BTF_KIND_FUNC, ATTACH_ITER);
	probe_row(d, "iter/task", &iter, ST_FALLBACK,
		  "top reads every task's I/O counters in one pass",
		  "top falls back to /proc/<pid>/io");
	check_top_source(d);

	/* kprobes need CONFIG_KPROBES for the PMU (4.17+) or, before that,
	 * kprobe_events; the program type itself loads without either. */
	kp = probe_kprobe();
	pmu = path_exists(KPROBE_PMU);
	kprobe_events = d->tracefs && path_exists(TRACEFS "/kprobe_events");
	if (!kp.load_err && !pmu && !kprobe_events)
		add_row(d, "kprobe", ST_MISSING,
			"not needed: iolens runs on tracepoints only",
			"loads; no kprobe PMU (CONFIG_KPROBES off)");
	else if (kp.load_err && !pmu && !kprobe_events)
		add_row(d, "kprobe", ST_MISSING,
			"not needed: iolens runs on tracepoints only",
			"no kprobe PMU; load: %s", errno_name(kp.load_err));
	else
		probe_row(d, "kprobe", &kp, ST_MISSING,
			  "available (iolens does not need it)",
			  "not needed: iolens runs on tracepoints only");

	fentry = probe_btf_prog(d, BPF_TRACE_FENTRY, "vfs_read",
				BTF_KIND_FUNC, ATTACH_LINK);
	probe_row(d, "fentry", &fentry, ST_MISSING,
		  "available (iolens does not need it)",
		  "not needed: iolens runs on tracepoints only");
}

static void check_ringbuf(struct doctor *d)
{
	struct probe p = { 0 };
	enum status st;
	int fd;

	/* Created directly rather than with libbpf_probe_bpf_map_type(),
	 * which answers 0 for any failure and so loses the errno.  The ring
	 * buffer (5.8) wants a power-of-two multiple of the page size. */
	fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0,
			    sysconf(_SC_PAGESIZE), NULL);
	if (fd < 0)
		p.load_err = errno;
	else
		close(fd);
	p.ok_detail = "created";
	p.verb = "create";
	st = probe_row(d, "ringbuf", &p, ST_MISSING,
		       "per-request records (snoop/record)",
		       "snoop/record cannot run");
	if (st == ST_MISSING)
		block_snoop(d, "no ring buffer");
	else if (st == ST_NOPRIV)
		d->unprobed = true;
}

/* ---- kernel structures ---- */

/* Finds `name` in struct/union `t`, looking through anonymous members. */
static bool find_member(const struct btf *btf, const struct btf_type *t,
			const char *name, __u32 *bit_off)
{
	const struct btf_member *m = btf_members(t);
	__u16 i, n = btf_vlen(t);

	for (i = 0; i < n; i++, m++) {
		const char *mname = btf__name_by_offset(btf, m->name_off);
		const struct btf_type *mt;
		__u32 sub;

		if (mname && *mname) {
			if (strcmp(mname, name))
				continue;
			*bit_off = btf_member_bit_offset(t, i);
			return true;
		}
		mt = btf__type_by_id(btf, m->type);
		if (mt && btf_is_composite(mt) &&
		    find_member(btf, mt, name, &sub)) {
			*bit_off = btf_member_bit_offset(t, i) + sub;
			return true;
		}
	}
	return false;
}

static void check_member(struct doctor *d, const char *sname,
			 const char *mname, enum status absent,
			 const char *present_conseq, const char *absent_conseq)
{
	const struct btf_type *t = NULL;
	char check[32];
	__s32 id;
	__u32 off;

	snprintf(check, sizeof(check), "%s.%s", sname, mname);
	if (!d->btf) {
		add_row(d, check, absent, absent_conseq, "no BTF");
		return;
	}
	id = btf__find_by_name_kind(d->btf, sname, BTF_KIND_STRUCT);
	if (id > 0)
		t = btf__type_by_id(d->btf, id);
	if (!t) {
		add_row(d, check, absent, absent_conseq,
			"no struct %s in BTF", sname);
		return;
	}
	if (!find_member(d->btf, t, mname, &off)) {
		add_row(d, check, absent, absent_conseq, "not in struct %s",
			sname);
		return;
	}
	add_row(d, check, ST_OK, present_conseq, "offset %u", off / 8);
}

static void check_enum(struct doctor *d, const char *name, const char *old,
		       const char *present_conseq, const char *absent_conseq)
{
	const char *names[] = { name, old };
	char check[40];
	size_t i;

	snprintf(check, sizeof(check), "enum %s", name);
	for (i = 0; d->btf && i < sizeof(names) / sizeof(names[0]); i++) {
		const struct btf_type *t;
		__s32 id;

		if (!names[i])
			continue;
		id = btf__find_by_name_kind(d->btf, names[i], BTF_KIND_ENUM);
		if (id <= 0)
			id = btf__find_by_name_kind(d->btf, names[i],
						    BTF_KIND_ENUM64);
		if (id <= 0)
			continue;
		t = btf__type_by_id(d->btf, id);
		if (i)
			add_row(d, check, ST_OK, present_conseq,
				"as enum %s, %u values", names[i],
				t ? btf_vlen(t) : 0);
		else
			add_row(d, check, ST_OK, present_conseq, "%u values",
				t ? btf_vlen(t) : 0);
		return;
	}
	add_row(d, check, ST_FALLBACK, absent_conseq, "%s",
		d->btf ? "not in BTF" : "no BTF");
}

static void check_structs(struct doctor *d)
{
	/*
	 * Present is not the same as filled: the block layer stamps these
	 * only when something needs the time (iostats, an I/O scheduler,
	 * blk-stat), so the BPF side still treats 0 as "not stamped".
	 */
	check_member(d, "request", "start_time_ns", ST_FALLBACK,
		     "queue/device split from the request itself (stat/lat)",
		     "per-request map fallback");
	check_member(d, "request", "io_start_time_ns", ST_FALLBACK,
		     "queue/device split from the request itself (stat/lat)",
		     "per-request map fallback");
	/* bi_blkg exists only with CONFIG_BLK_CGROUP. */
	check_member(d, "bio", "bi_blkg", ST_MISSING,
		     "writeback attributed to the dirtying cgroup (CONFIG_BLK_CGROUP)",
		     "no blk-cgroup: I/O attributed to the submitting task's cgroup only");
	check_enum(d, "req_flag_bits", NULL,
		   "request flags decoded from BTF",
		   "request flags decoded with built-in 6.x values");
	/* enum req_opf was renamed enum req_op in 6.0 (the blk_opf_t series). */
	check_enum(d, "req_op", "req_opf",
		   "request ops decoded from BTF",
		   "request ops decoded with built-in 6.x values");
}

/*
 * Which path stat/lat take per disk: the kernel stamps issues
 * (rq->io_start_time_ns) only on queues with QUEUE_FLAG_STATS, which
 * blk-stat users set: wbt, iolatency, iocost.  wbt is the common one and
 * the one sysfs shows; without it stat stamps issues itself in a map.
 */
static void check_issue_stamps(struct doctor *d)
{
	DIR *dir = opendir("/sys/block");
	struct dirent *e;
	int n = 0;

	if (!dir)
		return;
	while ((e = readdir(dir)) && n < MAX_DISK_ROWS) {
		char path[300], check[40];
		unsigned long sectors = 0, usec = 0;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/size", e->d_name);
		f = fopen(path, "r");
		/* An unbound loop device has no queue traffic to time. */
		if (!f || fscanf(f, "%lu", &sectors) != 1 || !sectors) {
			if (f)
				fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/sys/block/%s/queue/wbt_lat_usec", e->d_name);
		f = fopen(path, "r");
		if (!f || fscanf(f, "%lu", &usec) != 1)
			usec = 0;
		if (f)
			fclose(f);
		snprintf(check, sizeof(check), "issue stamp %.24s", e->d_name);
		n++;
		if (usec)
			add_row(d, check, ST_OK, "stat/lat: queue/device split from rq->io_start_time_ns",
				"wbt on (%lu us): the queue keeps QUEUE_FLAG_STATS", usec);
		else
			add_row(d, check, ST_FALLBACK, "stat/lat: own issue stamp in a per-request map",
				"wbt off: the kernel stamps issues only if iolatency or iocost is set up");
	}
	closedir(dir);
}

/* ---- output ---- */

static void print_text(const struct doctor *d)
{
	int wc = strlen("CHECK"), ws = strlen("STATUS"), wd = strlen("DETAIL");
	int i;

	for (i = 0; i < d->nrows; i++) {
		const struct row *r = &d->rows[i];
		int n;

		n = strlen(r->check);
		wc = n > wc ? n : wc;
		n = strlen(status_name[r->status]);
		ws = n > ws ? n : ws;
		n = strlen(r->detail);
		wd = n > wd ? n : wd;
	}
	printf("%-*s  %-*s  %-*s  %s\n", wc, "CHECK", ws, "STATUS", wd,
	       "DETAIL", "CONSEQUENCE");
	for (i = 0; i < d->nrows; i++) {
		const struct row *r = &d->rows[i];

		printf("%-*s  %-*s  %-*s  %s\n", wc, r->check, ws,
		       status_name[r->status], wd, r->detail, r->consequence);
	}
	putchar('\n');
	if (d->nblockers) {
		printf("snoop/record: cannot run:");
		for (i = 0; i < d->nblockers; i++)
			printf("%s %s", i ? "," : "", d->blockers[i]);
		putchar('\n');
	} else if ((d->unprobed || !d->may_load) && geteuid()) {
		printf("snoop/record: needs root (or CAP_BPF and CAP_PERFMON); "
		       "rerun as root (sudo iolens doctor) for the program checks\n");
	} else if (d->unprobed || !d->may_load) {
		printf("snoop/record: this root lacks CAP_SYS_ADMIN (or CAP_BPF and CAP_PERFMON); "
		       "rerun with them for the program checks\n");
	} else {
		printf("snoop/record: ready (%s)\n", d->attach);
	}
}

static void print_json(const struct doctor *d, const char *release)
{
	unsigned int count[ST_NOPRIV + 1] = { 0 };
	const char *state;
	struct json j;
	int i;

	json_init(&j, stdout);
	json_obj_open(&j, NULL);
	json_str(&j, "kernel", release);
	json_arr_open(&j, "checks");
	for (i = 0; i < d->nrows; i++) {
		const struct row *r = &d->rows[i];

		count[r->status]++;
		json_obj_open(&j, NULL);
		json_str(&j, "check", r->check);
		json_str(&j, "status", status_name[r->status]);
		json_str(&j, "detail", r->detail);
		json_str(&j, "consequence", r->consequence);
		json_obj_close(&j);
	}
	json_arr_close(&j);

	if (d->nblockers)
		state = "cannot run";
	else if (d->unprobed || !d->may_load)
		state = "unknown";
	else
		state = "ready";
	json_obj_open(&j, "summary");
	json_str(&j, "snoop_record", state);
	json_str(&j, "attach", d->attach);
	json_bool(&j, "privileged", d->may_load);
	json_arr_open(&j, "blockers");
	for (i = 0; i < d->nblockers; i++)
		json_str(&j, NULL, d->blockers[i]);
	json_arr_close(&j);
	for (i = 0; i <= ST_NOPRIV; i++)
		json_u64(&j, status_name[i], count[i]);
	json_obj_close(&j);
	json_obj_close(&j);
	json_newline(&j);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iolens doctor [-j] [-h]\n"
		"\n"
		"What this kernel and this user can do: BTF, privileges, every\n"
		"tracepoint iolens uses, the program types (each loaded for real),\n"
		"the ring buffer and the kernel structures read through BTF; for\n"
		"each, what falls back or stops working when it is missing.\n"
		"Run it as root for the program checks; as another user they show\n"
		"as no-privilege.\n"
		"\n"
		"options:\n"
		"  -j, --json   one JSON object: kernel, checks[], summary\n"
		"  -h, --help   this help\n"
		"\n"
		"exit status: 0 if snoop/record can run (or could not be probed\n"
		"without privileges), 1 if something they need is missing.\n"
		"\n"
		"examples:\n"
		"  sudo iolens doctor\n"
		"  sudo iolens doctor -j | jq -r '.checks[] | select(.status != \"ok\") | .check'\n");
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct doctor *d;
	struct utsname u;
	bool json = false;
	size_t i;
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return opt_error("doctor", opt, argv);
		}
	}
	if (optind < argc)
		return usage_err("doctor", "unexpected argument '%s'",
				 argv[optind]);

	d = calloc(1, sizeof(*d));
	if (!d) {
		pr_err("doctor: out of memory");
		return 1;
	}
	if (uname(&u))
		memset(&u, 0, sizeof(u));

	check_kernel(d, &u);
	check_btf(d);
	check_privileges(d);
	check_tracefs(d);
	for (i = 0; i < sizeof(tp_checks) / sizeof(tp_checks[0]); i++)
		check_tracepoint(d, &tp_checks[i]);
	check_programs(d);
	check_ringbuf(d);
	check_structs(d);
	check_issue_stamps(d);

	if (json)
		print_json(d, u.release);
	else
		print_text(d);

	ret = d->nblockers ? 1 : 0;
	btf__free(d->btf);
	free(d);
	return ret;
}
