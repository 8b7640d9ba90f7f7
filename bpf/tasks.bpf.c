// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task I/O for `iolens top`.
 *
 *   - task_rec (iter/task) writes one struct iolens_task_rec per thread:
 *     task->ioac as /proc/<tid>/io shows it, the leader's signal->ioac, and
 *     the syscall counters below.  Userspace reads a whole pass with one
 *     bpf_iter_create() and a few big read()s: no per-task syscall.
 *   - With syscall counting, the enter/exit tracepoints of the read and
 *     write families and of fsync/fdatasync time each call and count it in
 *     the calling thread's task storage, split by what the fd is, and in a
 *     per-CPU latency histogram per class.
 *   - task_exit (tp_btf/sched_process_exit) writes an exiting thread's
 *     last record to the ring buffer `exits`, and with syscall counting
 *     folds its counters into its leader's sys_dead, as the kernel folds
 *     task->ioac into signal->ioac (__exit_signal), so per-process sums
 *     never go back.
 *
 * Only the syscalls listed here are counted: io_uring, aio, sendfile,
 * splice, copy_file_range and mmap I/O do not pass through them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "tasks.h"
#include "hist.bpf.h"
#include "files.bpf.h"
#include "rmw.bpf.h"
#include "rq_hook.bpf.h"
#include "sys_hook.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Set by userspace once the syscall programs are attached, cleared if they
 * are not: records carry IOLENS_TASK_SYS only when the counters are live.
 * Not rodata, so that a failed attach after load can still turn it off.
 */
volatile __u32 sys_on;

/* One thread's syscall state; sys_dead and delay_dead are used in leaders
 * only. */
struct task_sys {
	__u64 start;		/* entry time of the call in progress, 0 = none */
	__u32 sc;		/* its enum iolens_sys_class */
	__u32 pad;
	struct iolens_sys sys;
	struct iolens_sys sys_dead;
	struct iolens_delay delay_dead;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_sys);
} sys_store SEC(".maps");

/* Shared by all CPUs, atomic adds: per CPU it was 9 KiB a syscall class
 * and CPU, 27 MiB on 256 CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IOLENS_SC_NR);
	__type(key, __u32);
	__type(value, struct iolens_hist);
} sys_hists SEC(".maps");

/* Exit records (bpf/tasks.h). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, IOLENS_EXITS_BYTES);
} exits SEC(".maps");

/* Exit records that did not fit in `exits`. */
__u64 exits_lost;

/* The record is built here: at 488 bytes it does not fit the stack with
 * anything else on it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iolens_task_rec);
} scratch SEC(".maps");

static __always_inline void ioac_copy(struct iolens_ioac *d,
				      const struct task_io_accounting *s)
{
#define IOAC_COPY(name)	d->name = s->name;
	IOLENS_IOAC_FIELDS(IOAC_COPY)
#undef IOAC_COPY
}

/* task->delays exists with CONFIG_TASK_DELAY_ACCT (Debian, Ubuntu and RHEL
 * build it) and is NULL for a task whose allocation failed; the fields are
 * those of taskstats since 2.6.18.  False when there is nothing to read. */
static __always_inline bool delay_read(struct task_struct *t,
				       struct iolens_delay *d)
{
	struct task_delay_info *di;

	if (!bpf_core_field_exists(t->delays))
		return false;
	di = BPF_CORE_READ(t, delays);
	if (!di)
		return false;
	d->blkio_ns = BPF_CORE_READ(di, blkio_delay);
	d->swapin_ns = BPF_CORE_READ(di, swapin_delay);
	return true;
}

static __u32 sys_cache_slot;	/* 1 + sys_store's cache slot, once seen: a
				 * map keeps its slot for life */

/* The data of sys_store in the storage of cache slot `i` of ls, or 0. */
static __always_inline __u64 sys_cached(const struct bpf_local_storage *ls, __u32 i,
					__u64 map)
{
	__u32 cache = bpf_core_field_offset(struct bpf_local_storage, cache);
	__u32 data = bpf_core_field_offset(struct bpf_local_storage_data, data);
	__u64 at = 0, smap = 0;

	bpf_probe_read_kernel(&at, sizeof(at), (void *)ls + cache + (i & 15) * sizeof(void *));
	if (at)
		bpf_probe_read_kernel(&smap, sizeof(smap), (void *)at +
				      bpf_core_field_offset(struct bpf_local_storage_data, smap));
	return at && smap == map ? at + data : 0;
}

/*
 * Where the iterator finds a thread's task_sys: without the helper.  Before
 * Linux 6.2 (e8b02296a6b8, "bpf: Avoid taking spinlock in
 * bpf_task_storage_get if potential deadlock is detected")
 * bpf_task_storage_get() returns NULL to any program on a CPU where another
 * holds the per-CPU busy count, and an iterator runs preemptible
 * (bpf_iter_run_prog() only disables migration): on a 6.1 PREEMPT_RT (or
 * preempt=full) kernel a thread that preempted the iterator inside the
 * helper lost the call it was ending.  The iterator only reads, under the
 * RCU read lock bpf_iter_run_prog() holds (storages are freed after a grace
 * period), so it follows the task's storages itself: the cache slot that
 * holds sys_store's data, else the list.  NULL if the thread has none.
 */
static __always_inline const void *sys_find(struct task_struct *t)
{
	__u64 map = (__u64)(void *)&sys_store, smap = 0, at;
	struct bpf_local_storage *ls;
	struct hlist_node *n;
	__u32 snode, sdata, data;

	/* Every field read here, or the helper (relocations of missing
	 * fields are then on a path the verifier drops). */
	if (!bpf_core_field_exists(t->bpf_storage) ||
	    !bpf_core_field_exists(struct bpf_local_storage, cache) ||
	    !bpf_core_field_exists(struct bpf_local_storage, list) ||
	    !bpf_core_field_exists(struct bpf_local_storage_elem, snode) ||
	    !bpf_core_field_exists(struct bpf_local_storage_elem, sdata) ||
	    !bpf_core_field_exists(struct bpf_local_storage_data, smap) ||
	    !bpf_core_field_exists(struct bpf_local_storage_data, data))
		return bpf_task_storage_get(&sys_store, t, 0, 0);
	snode = bpf_core_field_offset(struct bpf_local_storage_elem, snode);
	sdata = bpf_core_field_offset(struct bpf_local_storage_elem, sdata);
	data = bpf_core_field_offset(struct bpf_local_storage_data, data);
	ls = BPF_CORE_READ(t, bpf_storage);
	if (!ls)
		return NULL;
	if (sys_cache_slot && (at = sys_cached(ls, sys_cache_slot - 1, map)))
		return (void *)at;
	for (__u32 i = 0; i < 16; i++) {
		at = sys_cached(ls, i, map);
		if (at) {
			sys_cache_slot = i + 1;
			return (void *)at;
		}
	}
	/* Not cached: another map took its slot (16, shared by all task
	 * storage maps). */
	n = BPF_CORE_READ(ls, list.first);
	for (int i = 0; i < 8 && n; i++) {
		at = (__u64)(void *)n - snode + sdata;
		bpf_probe_read_kernel(&smap, sizeof(smap), (void *)at +
				      bpf_core_field_offset(struct bpf_local_storage_data, smap));
		if (smap == map)
			return (void *)at + data;
		n = BPF_CORE_READ(n, next);
	}
	return NULL;
}

/* A record of thread t, its syscall state s (NULL: none); dead, sys_dead
 * and delay_dead are left zero. */
static __always_inline void rec_fill(struct iolens_task_rec *r, struct task_struct *t,
				     const struct task_sys *s)
{
	r->tid = t->pid;
	r->tgid = t->tgid;
	r->uid = BPF_CORE_READ(t, cred, euid.val);
	r->flags = t->flags & KERNEL_PF_KTHREAD ? IOLENS_TASK_KTHREAD : 0;
	r->start_ns = t->start_time;
	r->cgroup = BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
	r->ppid = BPF_CORE_READ(t, real_parent, tgid);
	r->pad = 0;
	ioac_copy(&r->io, &t->ioac);
	if (delay_read(t, &r->delay))
		r->flags |= IOLENS_TASK_BLKIO | IOLENS_TASK_SWAPIN;
	else
		__builtin_memset(&r->delay, 0, sizeof(r->delay));
	if (sys_on)
		r->flags |= IOLENS_TASK_SYS;
	if (!s || bpf_probe_read_kernel(&r->sys, sizeof(r->sys), &s->sys))
		__builtin_memset(&r->sys, 0, sizeof(r->sys));
	__builtin_memset(&r->dead, 0, sizeof(r->dead));
	__builtin_memset(&r->sys_dead, 0, sizeof(r->sys_dead));
	__builtin_memset(&r->delay_dead, 0, sizeof(r->delay_dead));
	bpf_probe_read_kernel(r->comm, sizeof(r->comm), t->comm);
}

SEC("iter/task")
int task_rec(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct iolens_task_rec *r;
	const struct task_sys *s;
	__u32 zero = 0;

	if (!t)
		return 0;	/* the end-of-iteration call */
	r = bpf_map_lookup_elem(&scratch, &zero);
	if (!r)
		return 0;
	s = sys_on ? sys_find(t) : NULL;
	rec_fill(r, t, s);
	/* A thread past exit_signals() has reached task_exit below, or soon
	 * will (do_exit() sets PF_EXITING first): its delays are, or will be,
	 * its leader's delay_dead. */
	if (sys_on && t->pid != t->tgid && t->flags & KERNEL_PF_EXITING)
		__builtin_memset(&r->delay, 0, sizeof(r->delay));
	/* signal->ioac: what the group's exited threads and reaped children
	 * did.  Only the leader carries it, so that summing a process's
	 * records counts it once. */
	if (t->pid == t->tgid) {
		ioac_copy(&r->dead, &t->signal->ioac);
		if (s && (bpf_probe_read_kernel(&r->sys_dead, sizeof(r->sys_dead), &s->sys_dead) ||
			  bpf_probe_read_kernel(&r->delay_dead, sizeof(r->delay_dead),
						&s->delay_dead))) {
			__builtin_memset(&r->sys_dead, 0, sizeof(r->sys_dead));
			__builtin_memset(&r->delay_dead, 0, sizeof(r->delay_dead));
		}
	}
	bpf_seq_write(ctx->meta->seq, r, sizeof(*r));
	return 0;
}

/* ---- syscall counting ---- */

enum dir { D_READ, D_WRITE };

/* Entry: one storage lookup (created on a thread's first call). */
static __always_inline void enter(__u32 sc)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct task_sys *s;

	s = bpf_task_storage_get(&sys_store, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s)
		return;
	/* The last call's exit was skipped (struct iolens_sys). */
	if (s->start)
		s->sys.unseen++;
	s->sc = sc;
	s->start = bpf_ktime_get_ns();
}

static __always_inline void enter_rw(struct syscall_trace_enter *ctx,
				     enum dir d)
{
	struct file_view f;
	bool file = fd_file(bpf_get_current_task_btf(),
			    (unsigned int)ctx->args[0], &f, false) &&
		    file_is_data(&f);

	if (d == D_READ)
		enter(file ? IOLENS_SC_FILE_READ : IOLENS_SC_OTHER_READ);
	else
		enter(file ? IOLENS_SC_FILE_WRITE : IOLENS_SC_OTHER_WRITE);
}

/*
 * Exit: one storage lookup and one histogram lookup.  Only the thread
 * itself writes its `sys`, so plain adds are exact.  The histograms are
 * per CPU with plain adds too: the syscall tracepoints are faultable since
 * 6.13, but the perf/BPF probe of sys_enter/sys_exit still runs with
 * preemption off (kernel/trace/trace_syscalls.c), so nothing on this CPU
 * interleaves with the increment.
 *
 * A call that returns -ERESTART* and is restarted counts twice: the kernel
 * runs the entry again, and the exit cannot tell a restart from an EINTR.
 */
static __always_inline void leave(long ret)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct iolens_hist *h;
	struct task_sys *s;
	__u64 now, d, b;
	__u32 sc;

	s = bpf_task_storage_get(&sys_store, t, 0, 0);
	if (!s)
		return;	/* entered before we attached */
	/* Its entry was skipped (struct iolens_sys). */
	if (!s->start) {
		s->sys.unseen++;
		return;
	}
	now = bpf_ktime_get_ns();
	d = now - s->start;
	sc = s->sc;
	s->start = 0;
	if (sc >= IOLENS_SC_NR)
		return;
	s->sys.calls[sc]++;
	if (ret > 0)
		s->sys.bytes[sc] += ret;
	s->sys.ns[sc] += d;
	h = bpf_map_lookup_elem(&sys_hists, &sc);
	if (!h)
		return;
	b = hist_bucket(d);
	if (b < HIST_BUCKETS)
		__sync_fetch_and_add(&h->b[b], 1);
}

/* The entry and exit programs of one syscall; `on_enter` is the entry's
 * statement, with ctx in scope. */
#define SYSCALL(name, on_enter)	SYS_PROGS(name, on_enter, leave(ctx->ret))

SYSCALL(read, enter_rw(ctx, D_READ))
SYSCALL(pread64, enter_rw(ctx, D_READ))
SYSCALL(readv, enter_rw(ctx, D_READ))
SYSCALL(preadv, enter_rw(ctx, D_READ))
SYSCALL(preadv2, enter_rw(ctx, D_READ))
SYSCALL(write, enter_rw(ctx, D_WRITE))
SYSCALL(pwrite64, enter_rw(ctx, D_WRITE))
SYSCALL(writev, enter_rw(ctx, D_WRITE))
SYSCALL(pwritev, enter_rw(ctx, D_WRITE))
SYSCALL(pwritev2, enter_rw(ctx, D_WRITE))
SYSCALL(fsync, enter(IOLENS_SC_SYNC))
SYSCALL(fdatasync, enter(IOLENS_SC_SYNC))

/*
 * A data read submitted by a task inside a write to a file: the write
 * covers part of a page that is not in the page cache, so the page is read
 * first (read-modify-write).  block_io_start runs where the bio becomes a
 * request, in the submitting task; before Linux 6.5 at its issue
 * (kernel.bpf.h), which the writer does itself as it waits for the page.
 * Metadata reads (REQ_META: bitmaps, inode tables) are the filesystem's own
 * and are left out.
 */
static __always_inline void rmw_seen(struct request *rq)
{
	struct task_sys *s;

	if (!rq_data_read(rq))
		return;
	s = bpf_task_storage_get(&sys_store, bpf_get_current_task_btf(), 0, 0);
	if (!s || !s->start || s->sc != IOLENS_SC_FILE_WRITE)
		return;
	s->sys.rmw_reads++;
	s->sys.rmw_bytes += rq->__data_len;
}

RQ_PROG("tp_btf/block_io_start", task_rmw, rmw_seen)
RQ_PROG("tp_btf/block_rq_issue", task_rmw_issue, rmw_seen)

#define SYS_WORDS (sizeof(struct iolens_sys) / sizeof(__u64))

/*
 * A thread exits.  Its last record goes to `exits` first, with its own
 * counters as they are now: it makes no more syscalls, and do_exit() has
 * run exit_mm() before this tracepoint.  What task->ioac can still count
 * is cancelled_write_bytes of a deleted file that exit_files(), after this
 * tracepoint, closes for the last time: in no record then.  Then, with
 * syscall counting, a thread other than the leader has its counters moved
 * to the leader's sys_dead and its own cleared, so that a pass seeing both
 * the dying thread (still hashed until release_task()) and the leader does
 * not count them twice.  Its delays go
 * to the leader's delay_dead too, so that a process's IO> does not lose the
 * waits of a thread that ended; the kernel keeps those only in the
 * taskstats it sends at exit (task_rec skips a dying thread's own).  Atomic
 * adds: threads of one group may exit on several CPUs at once.  A leader
 * that exits first stays a zombie until the last thread is reaped, and its
 * storage with it (freed in __put_task_struct()).
 *
 * Not handled: a non-leader thread that execs takes over the leader's tid
 * (de_thread()); the old leader's own counters are lost then.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(task_exit, struct task_struct *p)
{
	struct iolens_task_rec *r;
	struct iolens_delay d;
	struct task_sys *s, *l;
	__u64 *src, *dst;
	bool delays;

	s = sys_on ? bpf_task_storage_get(&sys_store, p, 0, 0) : NULL;
	r = bpf_ringbuf_reserve(&exits, sizeof(*r), 0);
	if (r) {
		rec_fill(r, p, s);
		r->flags |= IOLENS_TASK_EXITED;
		bpf_ringbuf_submit(r, 0);
	} else {
		__sync_fetch_and_add(&exits_lost, 1);
	}
	if (!sys_on || p->pid == p->tgid)
		return 0;
	delays = delay_read(p, &d) && (d.blkio_ns || d.swapin_ns);
	if (!s && !delays)
		return 0;
	l = bpf_task_storage_get(&sys_store, p->group_leader, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!l)
		return 0;
	if (delays) {
		__sync_fetch_and_add(&l->delay_dead.blkio_ns, d.blkio_ns);
		__sync_fetch_and_add(&l->delay_dead.swapin_ns, d.swapin_ns);
	}
	if (!s)
		return 0;
	src = (__u64 *)&s->sys;
	dst = (__u64 *)&l->sys_dead;
	for (int i = 0; i < SYS_WORDS; i++) {
		__u64 v = src[i];

		if (v)
			__sync_fetch_and_add(&dst[i], v);
		src[i] = 0;
	}
	return 0;
}
