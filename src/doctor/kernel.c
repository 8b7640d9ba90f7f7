// SPDX-License-Identifier: GPL-2.0
/* iolens doctor: the kernel, BTF, privileges, tracefs, the tracepoints and
 * the kernel structures iolens reads. */
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
#include "lib/safepath.h"
#include "lib/delayacct.h"
#include "trace/kfacts.h"
#include "trace/tracefs.h"
#include "lib/devices.h"
#include "lib/ksyms.h"
#include "lib/priv.h"
#include "lib/units.h"

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
	doctor_row(d, "kernel", ST_OK, what, "%s %s", u->release, u->machine);
}

static void check_btf(struct doctor *d)
{
	struct stat st;

	if (stat(BTF_PATH, &st)) {
		doctor_row(d, "btf", ST_MISSING, "no CO-RE: iolens cannot run",
			"%s: %s", BTF_PATH, doctor_errno(errno));
		doctor_block(d, "no kernel BTF");
		return;
	}
	d->btf = btf__load_vmlinux_btf();
	if (!d->btf) {
		doctor_row(d, "btf", ST_MISSING, "no CO-RE: iolens cannot run",
			"%s unreadable: %s", BTF_PATH, doctor_errno(errno));
		doctor_block(d, "kernel BTF unreadable");
		return;
	}
	doctor_row(d, "btf", ST_OK, "CO-RE relocations and BTF-typed tracepoints",
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
		doctor_row(d, "root", ST_OK,
			"tracefs readable (mode 0700, owned by root)", "euid 0");
	else
		doctor_row(d, "root", d->may_load ? ST_FALLBACK : ST_NOPRIV,
			d->may_load ? "not root, but the capabilities suffice" :
				      nopriv,
			"euid %u", (unsigned int)euid);

	doctor_row(d, "CAP_SYS_ADMIN", admin ? ST_OK : ST_NOPRIV,
		admin ? "implies CAP_BPF and CAP_PERFMON (the only way before 5.8)" :
			bpf && perfmon ? "not needed: CAP_BPF and CAP_PERFMON suffice since 5.8" :
					 "not needed if CAP_BPF and CAP_PERFMON are held",
		"%s", admin ? "effective" : "not held");
	doctor_row(d, "CAP_BPF", bpf ? ST_OK : admin ? ST_FALLBACK : ST_NOPRIV,
		bpf ? "load programs, create maps" :
		admin ? "CAP_SYS_ADMIN covers it" : nopriv,
		"%s", bpf ? "effective" : "not held");
	doctor_row(d, "CAP_PERFMON", perfmon ? ST_OK : admin ? ST_FALLBACK : ST_NOPRIV,
		perfmon ? "tracing programs may read kernel memory" :
		admin ? "CAP_SYS_ADMIN covers it" : nopriv,
		"%s", perfmon ? "effective" : "not held");
}

/* As the commands do: mounted where it is not (as perf does). */
static void check_tracefs(struct doctor *d)
{
	bool mounted_now;
	int err = tracefs_ensure(&mounted_now);
	char events[128];

	if (err) {
		if (err != -ENODEV)
			snprintf(d->tracefs_why, sizeof(d->tracefs_why),
				 "could not be mounted (%s)", strerror(-err));
		doctor_row(d, "tracefs", err == -ENODEV ? ST_MISSING : ST_NOPRIV,
			"syscall tracepoints cannot attach: no syscall level in top, no check or bench",
			"not mounted, cannot mount: %s", doctor_errno(-err));
		return;
	}
	/* Mode 0700 by default: mounted is not the same as usable.  Where
	 * libbpf reads it: through debugfs if that is mounted. */
	snprintf(events, sizeof(events), "%s/events", tracefs_dir());
	if (access(events, R_OK | X_OK)) {
		char what[128];

		snprintf(d->tracefs_why, sizeof(d->tracefs_why), "could not be read (%s)",
			 strerror(errno));
		snprintf(what, sizeof(what),
			 "syscall tracepoints cannot attach as this user: run as root, or let it read %s",
			 tracefs_dir());
		doctor_row(d, "tracefs", ST_NOPRIV, what, "%s mounted, %s", tracefs_dir(),
			   doctor_errno(errno));
		return;
	}
	d->tracefs = true;
	doctor_row(d, "tracefs", ST_OK,
		"syscall tracepoints' event ids (top's syscall level, check, bench)",
		"%s%s", tracefs_dir(), mounted_now ? " (was not mounted: iolens mounted it)" : "");
}

/* How paths another user may have prepared are opened (lib/safepath.h). */
static void check_paths(struct doctor *d)
{
	if (safepath_openat2())
		doctor_row(d, "paths", ST_OK,
			"outputs, load targets, job files: no link another user planted is followed",
			"openat2 (RESOLVE_NO_SYMLINKS); links: only root's or yours");
	else
		doctor_row(d, "paths", ST_FALLBACK,
			"the same protection, by one open() a component",
			"no openat2 (Linux 5.6+, or a seccomp filter refused it): walked with O_NOFOLLOW");
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

/* The kernel's struct members iolens reads where a kernel may lack them:
 * a row each, with what their presence and their absence mean. */
static const struct member_row {
	const char *sname, *mname;
	enum status absent;
	const char *present_conseq, *absent_conseq;
} member_rows[] = {
	/*
	 * Present is not the same as filled: the block layer stamps these
	 * only when something needs the time (iostats, an I/O scheduler,
	 * blk-stat), so the BPF side still treats 0 as "not stamped".
	 */
	{ "request", "start_time_ns", ST_FALLBACK,
	  "queue/device split from the request itself (stat/lat)",
	  "per-request map fallback" },
	{ "request", "io_start_time_ns", ST_FALLBACK,
	  "queue/device split from the request itself (stat/lat)",
	  "per-request map fallback" },
	/* rq->state since Linux 4.18. */
	{ "request", "state", ST_FALLBACK,
	  "stat/top/serve: a requeue before issue takes back no issue",
	  "every requeue taken as one of an issued request" },
	{ "request", "deadline", ST_MISSING,
	  "stat/serve count requests that reached their timeout",
	  "no timeouts counted" },
	/* rq->mq_hctx since Linux 5.0. */
	{ "request", "mq_hctx", ST_MISSING,
	  "stat --by hwq: requests by hardware queue",
	  "stat --by hwq counts every request as of no queue" },
	/* The syscall events' records, read by CO-RE: their fields move
	 * where struct trace_entry grows (PREEMPT_RT; bpf/sys_hook.bpf.h). */
	{ "syscall_trace_enter", "args", ST_MISSING,
	  "top's syscall level, check, bench: syscall arguments",
	  "the syscall programs cannot load" },
	{ "syscall_trace_exit", "ret", ST_MISSING,
	  "top's syscall level, check, bench: syscall results",
	  "the syscall programs cannot load" },
	/* With task storage (Linux 5.11); the iterator also reads the
	 * storage's own structs, guarded alike (bpf/tasks.bpf.c sys_find). */
	{ "task_struct", "bpf_storage", ST_FALLBACK,
	  "top reads its syscall counters without the storage helper",
	  "through the helper, which before Linux 6.2 can fail while preempted" },
	/* bi_blkg exists only with CONFIG_BLK_CGROUP. */
	{ "bio", "bi_blkg", ST_MISSING,
	  "writeback attributed to the dirtying cgroup (CONFIG_BLK_CGROUP)",
	  "no blk-cgroup: I/O attributed to the submitting task's cgroup only" },
};

static void check_member(struct doctor *d, const struct member_row *m)
{
	const struct btf_type *t = NULL;
	char check[32];
	__s32 id;
	__u32 off;

	snprintf(check, sizeof(check), "%s.%s", m->sname, m->mname);
	if (!d->btf) {
		doctor_row(d, check, m->absent, m->absent_conseq, "no BTF");
		return;
	}
	id = btf__find_by_name_kind(d->btf, m->sname, BTF_KIND_STRUCT);
	if (id > 0)
		t = btf__type_by_id(d->btf, id);
	if (!t) {
		doctor_row(d, check, m->absent, m->absent_conseq,
			"no struct %s in BTF", m->sname);
		return;
	}
	if (!find_member(d->btf, t, m->mname, &off)) {
		doctor_row(d, check, m->absent, m->absent_conseq,
			"not in struct %s", m->sname);
		return;
	}
	doctor_row(d, check, ST_OK, m->present_conseq, "offset %u", off / 8);
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
			doctor_row(d, check, ST_OK, present_conseq,
				"as enum %s, %u values", names[i],
				t ? btf_vlen(t) : 0);
		else
			doctor_row(d, check, ST_OK, present_conseq, "%u values",
				t ? btf_vlen(t) : 0);
		return;
	}
	doctor_row(d, check, ST_FALLBACK, absent_conseq, "%s",
		d->btf ? "not in BTF" : "no BTF");
}

/* What the loaders set into the objects' read-only data (trace/kfacts.c). */
static void check_kfacts(struct doctor *d)
{
	const struct kfacts *k = kfacts_get();
	static const char *const source[] = {
		[KFACT_BTF] = "from BTF", [KFACT_VERSION] = "by kernel version",
		[KFACT_UNKNOWN] = "unknown",
	};

	doctor_row(d, "rq_flags bits", k->rqf_source == KFACT_UNKNOWN ? ST_FALLBACK : ST_OK,
		   k->rqf_source == KFACT_UNKNOWN ?
		   "stat counts every request as diskstats would count it, flush sequences included" :
		   "stat counts requests exactly as diskstats (RQF_IO_STAT, RQF_FLUSH_SEQ)",
		   "IO_STAT 0x%x, FLUSH_SEQ 0x%x, %s", k->rqf_io_stat,
		   k->rqf_flush_seq, source[k->rqf_source]);
	doctor_row(d, "bpf_rdonly_cast", k->rdonly_cast ? ST_OK : ST_FALLBACK,
		   k->rdonly_cast ? "files read with direct loads (syscall hooks, check)" :
		   "files read with probe reads: the syscall hooks cost more",
		   "kfunc %s (Linux 6.2)", k->rdonly_cast ? "present" : "absent");
	doctor_row(d, "nested completions", k->preempt_count ? ST_OK : ST_FALLBACK,
		   k->preempt_count ?
		   "a completion inside the completion hook is counted (stat, lat, top, serve)" :
		   "a completion inside the completion hook is counted, but in its first and last instructions missed (and said)",
		   "%s%s", k->preempt_count ? "preempt count read from " :
		   IS_X86_64 ? "no per-CPU variables in /proc/kallsyms (CONFIG_KALLSYMS_ALL)" :
		   "preempt count not read on this architecture",
		   k->preempt_count ? k->preempt_count : "");
	doctor_row(d, "tracepoint runs skipped", k->tp_misses_counted ? ST_OK : ST_FALLBACK,
		   k->tp_misses_counted ?
		   "top counts syscalls whose programs the kernel skipped (syscall_runs_skipped)" :
		   "top cannot count syscalls whose programs the kernel skipped at both ends (syscall_runs_skipped null)",
		   "counted in recursion_misses from Linux 6.7, %s", source[KFACT_VERSION]);
}

/* --files tells direct I/O by iomap's bio end function, whose address
 * only /proc/kallsyms gives (trace/block_trace.c). */
static void check_dio_files(struct doctor *d)
{
	int err = ksyms_load();

	if (!err && ksyms_addr("iomap_dio_bio_end_io"))
		doctor_row(d, "direct I/O's files", ST_OK,
			   "snoop, record and top --files name the files of direct I/O (iomap)",
			   "iomap_dio_bio_end_io in /proc/kallsyms");
	else
		doctor_row(d, "direct I/O's files", ST_FALLBACK,
			   "snoop, record and top --files show direct I/O as unknown",
			   "%s", err == -EPERM ? "/proc/kallsyms hides addresses (kptr_restrict)" :
			   err ? "/proc/kallsyms unreadable" : "no iomap_dio_bio_end_io");
}

/* top's IO> and SWAPIN: the kernel must keep task->delays
 * (CONFIG_TASK_DELAY_ACCT) and add to them (kernel.task_delayacct). */
static void check_delays(struct doctor *d)
{
	const struct btf_type *t = NULL;
	enum delayacct_state st = delayacct_state();
	__s32 id = d->btf ? btf__find_by_name_kind(d->btf, "task_struct", BTF_KIND_STRUCT) : -1;
	__u32 off;

	if (id > 0)
		t = btf__type_by_id(d->btf, id);
	if (!t || !find_member(d->btf, t, "delays", &off))
		doctor_row(d, "task delays", ST_MISSING,
			   "top shows no IO> or SWAPIN (CONFIG_TASK_DELAY_ACCT off)",
			   "%s", d->btf ? "no task_struct.delays" : "no BTF");
	else if (st == DELAYACCT_OFF)
		doctor_row(d, "task delays", ST_FALLBACK,
			   "top's IO> and SWAPIN are off: sysctl kernel.task_delayacct=1 turns them on",
			   "kernel.task_delayacct=0");
	else
		doctor_row(d, "task delays", ST_OK, "top shows IO> and SWAPIN (task->delays)",
			   "%s", st == DELAYACCT_ON ? "kernel.task_delayacct=1" :
			   "on unless booted with nodelayacct (no sysctl before 5.14)");
}

static void check_structs(struct doctor *d)
{
	for (size_t i = 0; i < sizeof(member_rows) / sizeof(member_rows[0]); i++)
		check_member(d, &member_rows[i]);
	check_enum(d, "req_flag_bits", NULL,
		   "request flags decoded from BTF",
		   "request flags decoded with built-in 6.x values");
	/* enum req_opf was renamed enum req_op in 6.0 (the blk_opf_t series). */
	check_enum(d, "req_op", "req_opf",
		   "request ops decoded from BTF",
		   "request ops decoded with built-in 6.x values");
	check_kfacts(d);
	check_dio_files(d);
	check_delays(d);
}

static bool disk_info(const char *disk, struct dev_info *info)
{
	__u32 dev;

	return !dev_parse(disk, &dev) && !dev_lookup(dev, info);
}

/*
 * Which path stat/lat take per disk: a bio-based disk's bios are timed
 * (agg_bio.bpf.h).  Otherwise the kernel stamps issues
 * (rq->io_start_time_ns) only on queues with QUEUE_FLAG_STATS, which
 * blk-stat users set: wbt, iolatency, iocost.  wbt is the common one and
 * the one sysfs shows; without it stat stamps issues itself in a map.
 * serve attaches the hook that does so only once a completion lacked the
 * kernel's stamp.
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
		struct dev_info info;
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
		n++;
		if (!disk_info(e->d_name, &info))
			continue;
		if (info.zone_bytes) {
			char size[16];

			fmt_bytes(size, sizeof(size), info.zone_bytes);
			snprintf(check, sizeof(check), "zoned %.24s", e->d_name);
			doctor_row(d, check, ST_OK, "snoop/record/lat -F: zone ops by name; stat -j: their counts (other_ops)",
				   "%s, zones of %s", info.zoned, size);
		}
		if (info.bio_based) {
			snprintf(check, sizeof(check), "bio-based %.24s", e->d_name);
			doctor_row(d, check, ST_OK, "stat/lat/serve/top: the kernel's counts, latency of its bios; snoop/record: no requests to show",
				   "its I/O never becomes a request");
			continue;
		}
		snprintf(path, sizeof(path), "/sys/block/%s/queue/wbt_lat_usec", e->d_name);
		f = fopen(path, "r");
		if (!f || fscanf(f, "%lu", &usec) != 1)
			usec = 0;
		if (f)
			fclose(f);
		snprintf(check, sizeof(check), "issue stamp %.24s", e->d_name);
		if (usec)
			doctor_row(d, check, ST_OK, "stat/lat: queue/device split from rq->io_start_time_ns",
				"wbt on (%lu us): the queue keeps QUEUE_FLAG_STATS", usec);
		else
			doctor_row(d, check, ST_FALLBACK, "stat/lat: own issue stamp in a per-request map; serve: from its first request without one",
				"wbt off: the kernel stamps issues only if iolatency or iocost is set up");
	}
	closedir(dir);
}

void doctor_check_kernel(struct doctor *d, const struct utsname *u)
{
	check_kernel(d, u);
	check_btf(d);
	check_privileges(d);
	check_tracefs(d);
	check_paths(d);
}

void doctor_check_structs(struct doctor *d)
{
	check_structs(d);
	check_issue_stamps(d);
}
