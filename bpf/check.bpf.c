// SPDX-License-Identifier: GPL-2.0
/*
 * `iolens check`: the writes that make a device or the page cache
 * read-modify-write.
 *
 *   - The write syscalls (write, pwrite64, writev, pwritev, pwritev2) keep,
 *     in the thread's task storage, which file it writes, where and how
 *     much, while the call runs.
 *   - block_io_start runs in the task that submits, where a bio becomes a
 *     request: a data read started inside a buffered write is the page
 *     cache reading a page the write covers only partly, sent at once; a
 *     write keeps its submitter and syscall until its issue.
 *   - block_rq_issue sends every data write request in its final shape
 *     (after merges), as the device gets it.  Userspace judges alignment,
 *     against the physical block or --align.
 *
 * One event per write request: check is a validation tool, run while a
 * workload runs, not a monitor left on.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "check.h"
#include "devfilter.bpf.h"
#include "files.bpf.h"
#include "rmw.bpf.h"
#include "rq_hook.bpf.h"
#include "sys_hook.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* include/linux/page-flags.h: low bits of page->mapping */
#define PAGE_MAPPING_FLAGS	3UL

const volatile struct iolens_check_cfg cfg;

/* Ring buffer records dropped for want of room. */
__u64 lost;

struct writing {
	bool active;		/* inside a write syscall on a data file */
	struct iolens_check_sys sys;
	/* The file's dentry: its name is read only for a request the call
	 * starts, not for every write.  The open fd pins it meanwhile. */
	__u64 dentry;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct writing);
} writing SEC(".maps");

/* A write request's submitter, from its start to its issue. */
struct owner {
	__u32 tgid, tid;
	struct iolens_check_sys sys;
	struct iolens_check_name name;
	char comm[IOLENS_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct owner);
} owners SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct iolens_check_calls);
} write_calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} check_events SEC(".maps");

static const struct iolens_check_sys no_sys = { .pos = -1, .fd = -1 };

/* The last IOLENS_CHECK_DEPTH components of the path of the dentry at
 * `dentry`, up to the root of its filesystem (whose dentry is its own
 * parent). */
static __always_inline void file_path(__u64 dentry, struct iolens_check_name *name)
{
	struct dentry *d = (void *)dentry;

	if (have_rdonly_cast)
		d = bpf_rdonly_cast(d, bpf_core_type_id_kernel(struct dentry));
	for (int i = 0; i < IOLENS_CHECK_DEPTH; i++) {
		struct dentry *up = have_rdonly_cast ? d->d_parent :
				    BPF_CORE_READ(d, d_parent);

		if (!up || up == d) {
			name->c[i][0] = 0;
			break;
		}
		bpf_probe_read_kernel_str(name->c[i], 32, have_rdonly_cast ?
					  d->d_name.name : BPF_CORE_READ(d, d_name.name));
		d = up;
	}
}

/* `pos` < -1: the file's own position (write(), writev()). */
static __always_inline void write_enter(unsigned int fd, __s64 pos, __u64 count)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct file_view f;
	struct writing *w;

	if (!fd_file(t, fd, &f, true) || !file_is_data(&f))
		return;
	w = bpf_task_storage_get(&writing, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!w)
		return;
	if (pos < -1)
		pos = f.flags & O_APPEND ? -1 : f.pos;
	w->active = true;
	w->sys.fd = fd;
	w->sys.pos = pos;
	w->sys.count = count;
	w->sys.ino = f.ino;
	w->sys.sdev = f.sdev;
	w->sys.direct = !!(f.flags & O_DIRECT);
	w->sys.bdev = f.rdev ?: f.sdev;
	w->dentry = f.dentry;
}

#define EINVAL 22

/* A zeroed event of `kind` in the ring; NULL (counted lost) if full. */
static __always_inline struct iolens_check_event *event_reserve(__u8 kind)
{
	struct iolens_check_event *e;

	e = bpf_ringbuf_reserve(&check_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lost, 1);
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->kind = kind;
	return e;
}

/* Sends `e` as an event of task t inside its write syscall w. */
static __always_inline void event_send_in_call(struct iolens_check_event *e,
					       struct task_struct *t,
					       const struct writing *w)
{
	e->tgid = t->tgid;
	e->tid = t->pid;
	e->sys = w->sys;
	file_path(w->dentry, &e->name);
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

/* An O_DIRECT write the kernel refused before any request: the block
 * layer's alignment check (EINVAL), which a 4Kn disk fails for 512-byte
 * writes. */
static __always_inline void write_refused(struct task_struct *t, struct writing *w)
{
	struct iolens_check_event *e = event_reserve(IOLENS_CHECK_REFUSED);

	if (!e)
		return;
	e->dev = w->sys.bdev;
	e->bytes = w->sys.count;
	event_send_in_call(e, t, w);
}

/* Counts the call in its process: what "RMW reads per write" divides by. */
static __always_inline void write_leave(long ret)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct iolens_check_calls *c, zero = {};
	struct writing *w;
	__u32 tgid;

	w = bpf_task_storage_get(&writing, t, 0, 0);
	if (!w || !w->active)
		return;
	w->active = false;
	tgid = t->tgid;
	c = bpf_map_lookup_elem(&write_calls, &tgid);
	if (!c) {
		bpf_get_current_comm(zero.comm, sizeof(zero.comm));
		bpf_map_update_elem(&write_calls, &tgid, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&write_calls, &tgid);
		if (!c)
			return;
	}
	__sync_fetch_and_add(&c->calls, 1);
	if (ret > 0)
		__sync_fetch_and_add(&c->bytes, ret);
	if (w->sys.direct)
		__sync_fetch_and_add(&c->direct, 1);
	if (w->sys.direct && ret == -EINVAL)
		write_refused(t, w);
}

#define WRITE_SYSCALL(name, pos, count)					\
	SYS_PROGS(name, write_enter((unsigned int)ctx->args[0], pos, count), \
		  write_leave(ctx->ret))

WRITE_SYSCALL(write, -2, ctx->args[2])
WRITE_SYSCALL(pwrite64, (__s64)ctx->args[3], ctx->args[2])
WRITE_SYSCALL(writev, -2, 0)
WRITE_SYSCALL(pwritev, (__s64)ctx->args[3], 0)
/* pwritev2 with offset -1 writes at the file's position. */
WRITE_SYSCALL(pwritev2, (__s64)ctx->args[3] == -1 ? -2 : (__s64)ctx->args[3], 0)

/* The file whose page cache the request's first page belongs to: none for
 * direct I/O (user memory: anonymous pages). */
static __always_inline void page_file(struct request *rq,
				      struct iolens_check_event *e)
{
	struct bio *bio = rq->bio;
	struct address_space *m;
	unsigned long mapping = 0;
	struct page *pg;

	if (!bio || !bio->bi_io_vec)
		return;
	pg = bio->bi_io_vec->bv_page;
	/* Read as a number: the low bits flag anonymous and movable pages,
	 * and the verifier allows no bit tests on a typed pointer. */
	if (!pg || bpf_probe_read_kernel(&mapping, sizeof(mapping), &pg->mapping) ||
	    !mapping || (mapping & PAGE_MAPPING_FLAGS))
		return;
	m = (void *)mapping;
	if (!have_rdonly_cast) {
		e->page_ino = BPF_CORE_READ(m, host, i_ino);
		e->page_sdev = BPF_CORE_READ(m, host, i_sb, s_dev);
		return;
	}
	m = bpf_rdonly_cast(m, bpf_core_type_id_kernel(struct address_space));
	e->page_ino = m->host->i_ino;
	e->page_sdev = m->host->i_sb->s_dev;
}

static __always_inline struct iolens_check_event *event_new(struct request *rq,
							    __u8 kind)
{
	struct iolens_check_event *e = event_reserve(kind);

	if (!e)
		return NULL;
	e->sector = rq->__sector;
	e->bytes = rq->__data_len;
	e->dev = disk_dev_of(rq);
	e->lbs = rq->q->limits.logical_block_size;
	e->pbs = rq->q->limits.physical_block_size;
	page_file(rq, e);
	return e;
}

static __always_inline __u32 req_op_of(struct request *rq)
{
	return rq->cmd_flags & KERNEL_REQ_OP_MASK;
}

static __always_inline void started(struct request *rq)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 op = req_op_of(rq);
	struct iolens_check_event *e;
	struct writing *w;
	struct owner o = {};
	__u64 key;

	if (!rq_in(cfg.dev, cfg.ndev, rq, disk_dev_of(rq)))
		return;
	w = bpf_task_storage_get(&writing, t, 0, 0);
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_READ)) {
		if (!w || !w->active || w->sys.direct || !rq_data_read(rq))
			return;
		e = event_new(rq, IOLENS_CHECK_RMW_READ);
		if (e)
			event_send_in_call(e, t, w);
		return;
	}
	if (op != bpf_core_enum_value(enum req_op, REQ_OP_WRITE))
		return;
	o.tgid = t->tgid;
	o.tid = t->pid;
	if (w && w->active) {
		o.sys = w->sys;
		file_path(w->dentry, &o.name);
	} else {
		o.sys = no_sys;
	}
	bpf_get_current_comm(o.comm, sizeof(o.comm));
	key = (__u64)rq;
	bpf_map_update_elem(&owners, &key, &o, BPF_ANY);
}

/* Where a bio becomes a request, in the task that submits it; before
 * Linux 6.5 at the request's issue (kernel.bpf.h). */
RQ_PROG("tp_btf/block_io_start", check_start, started)

SEC("tp_btf/block_rq_issue")
int BPF_PROG(check_issue, struct request *rq)
{
	struct iolens_check_event *e;
	struct owner *o;
	__u64 key;

	if (!have_io_start)
		started(rq);
	/* The empty write of a flush sequence (PREFLUSH) carries no data. */
	if (req_op_of(rq) != bpf_core_enum_value(enum req_op, REQ_OP_WRITE) ||
	    !rq->__data_len || !rq_in(cfg.dev, cfg.ndev, rq, disk_dev_of(rq)))
		return 0;
	e = event_new(rq, IOLENS_CHECK_WRITE);
	if (!e)
		return 0;
	key = (__u64)rq;
	o = bpf_map_lookup_elem(&owners, &key);
	if (o) {
		e->tgid = o->tgid;
		e->tid = o->tid;
		e->sys = o->sys;
		e->name = o->name;
		__builtin_memcpy(e->comm, o->comm, sizeof(e->comm));
		/* A requeued request is issued again with its owner unknown:
		 * better than an owner left behind for a reused address. */
		bpf_map_delete_elem(&owners, &key);
	} else {
		e->sys = no_sys;
	}
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}
