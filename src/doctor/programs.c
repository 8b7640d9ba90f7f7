// SPDX-License-Identifier: GPL-2.0
/*
 * iolens doctor: every program-type check loads a real two-instruction
 * program and, where it is cheap, attaches it for an instant: feature lists
 * and config files have been wrong on these machines (fentry is configured
 * in but refused with EPERM), a load is not.  Nothing here calls a libbpf
 * function that prints; libbpf's own log stays behind -v as everywhere else.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "doctor/doctor.h"
#include "trace/tracefs.h"
#include "trace/task_trace.h"

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
	char buf[32], path[128];
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
	snprintf(path, sizeof(path), "%s/events/block/block_rq_complete/id", tracefs_dir());
	idfd = open(path, O_RDONLY | O_CLOEXEC);
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
		doctor_row(d, check, ST_OK, ok_conseq, "%s",
			p->ok_detail ? p->ok_detail :
			p->attached ? "loaded and attached" : "loaded");
		return ST_OK;
	}
	err = p->load_err ? p->load_err : p->attach_err;
	perm = err == EPERM || err == EACCES;
	if (perm && !d->may_load) {
		doctor_row(d, check, ST_NOPRIV, "unknown: rerun as root to check",
			"%s: %s", p->load_err ? verb : "attach",
			doctor_errno(err));
		return ST_NOPRIV;
	}
	doctor_row(d, check, absent, absent_conseq, "%s: %s%s%s%s",
		p->load_err ? verb : "loaded; attach", doctor_errno(err),
		p->note ? " (" : "", p->note ? p->note : "",
		p->note ? ")" : perm ? " even with privileges" : "");
	return absent;
}

/* The iterator `iolens top` really loads: beyond the bare program above,
 * its CO-RE reads of task->ioac and signal->ioac must relocate. */
static void check_top_source(struct doctor *d)
{
	bool exits = false;
	int err;

	if (!d->may_load) {
		doctor_row(d, "top source", ST_NOPRIV, "unknown: rerun as root to check",
			"not loaded");
		return;
	}
	err = task_trace_probe(&exits);
	if (err)
		doctor_row(d, "top source", ST_FALLBACK,
			"top reads /proc/<pid>/task/<tid>/io: slower, no syscall-level counters; "
			"a process's last interval before it ends is not counted",
			"/proc fallback: %s", doctor_errno(-err));
	else if (!exits)
		doctor_row(d, "top source", ST_FALLBACK,
			"top reads every thread's I/O counters in one pass; "
			"a process's last interval before it ends is not counted",
			"iter/task without its exit hook");
	else
		doctor_row(d, "top source", ST_OK,
			"top reads every thread's I/O counters in one pass, and each "
			"thread's last ones as it exits",
			"iter/task and exit records");
}

static void check_programs(struct doctor *d)
{
	struct probe tp, raw, btf, iter, kp, fentry;
	enum status st_btf, st_raw;
	bool pmu, kprobe_events;
	char path[128];

	tp = probe_tracepoint(d);
	probe_row(d, "tracepoint", &tp, ST_MISSING,
		  "the syscall events of top, check and bench",
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
		doctor_block(d, "neither tp_btf nor raw_tp works");
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
	pmu = doctor_path_exists(KPROBE_PMU);
	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs_dir());
	kprobe_events = d->tracefs && doctor_path_exists(path);
	if (!kp.load_err && !pmu && !kprobe_events)
		doctor_row(d, "kprobe", ST_MISSING,
			"not needed: iolens runs on tracepoints only",
			"loads; no kprobe PMU (CONFIG_KPROBES off)");
	else if (kp.load_err && !pmu && !kprobe_events)
		doctor_row(d, "kprobe", ST_MISSING,
			"not needed: iolens runs on tracepoints only",
			"no kprobe PMU; load: %s", doctor_errno(kp.load_err));
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
		doctor_block(d, "no ring buffer");
	else if (st == ST_NOPRIV)
		d->unprobed = true;
}

void doctor_check_programs(struct doctor *d)
{
	check_programs(d);
	check_ringbuf(d);
}
