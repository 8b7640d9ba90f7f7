// SPDX-License-Identifier: GPL-2.0
/*
 * Per-request block tracer: one struct iolens_rq per completed request.
 *
 * Only tracepoints are used: kprobes and fentry are unavailable on the
 * kernels iolens targets (DESIGN.md section 4).  Every hook exists twice, as
 * tp_btf (BTF-typed, cheapest) and as raw_tp (same arguments, for kernels
 * whose tp_btf attach fails); userspace disables the flavour it does not use
 * before load.  All request fields are read with CO-RE so both flavours share
 * one body.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "iolens.h"

char LICENSE[] SEC("license") = "GPL";

const volatile struct iolens_block_cfg cfg = {};

/* State of a request between its first sighting and its completion. */
struct rq_state {
	__u64 ts_start;
	__u64 ts_insert;
	__u64 ts_issue;
	__u64 sector;
	__u64 cgroup;
	__u64 io_cgroup;
	__u32 io_cgroup_hier;
	__u32 dev;
	__u32 bytes;
	__u32 pid;
	__u32 tid;
	__u16 qd;
	__u8 ctx;
	__u8 requeues;
	char comm[IOLENS_COMM_LEN];
};

/* Keyed by the request's address, which is unique while it is in flight;
 * a request freed without completion (never seen here) is overwritten when
 * its slot is reused, so the map cannot fill with stale entries for long. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u64);
	__type(value, struct rq_state);
} rqs SEC(".maps");

/* Requests issued and not yet completed, per disk, counting only requests
 * whose issue was seen (those in flight at attach are not counted). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __s64);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iolens_counters);
} counters SEC(".maps");

/* Wake the reader only once this much is queued; it also polls on a timer,
 * so a quiet device still gets its records out.  Waking per record would
 * cost an irq_work per request. */
#define WAKEUP_BYTES (256 << 10)

static __always_inline struct iolens_counters *counters_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counters, &zero);
}

static __always_inline __u32 rq_dev(struct request *rq)
{
	struct gendisk *disk = BPF_CORE_READ(rq, q, disk);
	__u32 major = BPF_CORE_READ(disk, major);
	__u32 minor = BPF_CORE_READ(disk, first_minor);

	/* Kernel-internal dev_t: MINORBITS is 20. */
	return major << 20 | minor;
}

static __always_inline bool dev_wanted(__u32 dev)
{
	if (!cfg.ndev)
		return true;
	for (int i = 0; i < IOLENS_MAX_DEV_FILTER; i++) {
		if (i >= cfg.ndev)
			break;
		if (cfg.dev[i] == dev)
			return true;
	}
	return false;
}

static __always_inline void rq_io_cgroup(struct request *rq, struct rq_state *s)
{
	struct cgroup *cg;

	/* The blkcg of the first bio is the cgroup the I/O is charged to; for
	 * writeback on cgroup2 it is the cgroup that dirtied the pages.  On a
	 * v1/v2 hybrid it lives in the blkio v1 hierarchy, so its id is only
	 * meaningful with the hierarchy.  Absent without CONFIG_BLK_CGROUP. */
	if (!bpf_core_field_exists(struct bio, bi_blkg))
		return;
	cg = BPF_CORE_READ(rq, bio, bi_blkg, blkcg, css.cgroup);
	if (!cg)
		return;
	s->io_cgroup = BPF_CORE_READ(cg, kn, id);
	s->io_cgroup_hier = BPF_CORE_READ(cg, root, hierarchy_id);
}

/* First sighting of a request: record who is running now. */
static __always_inline struct rq_state *rq_track(struct request *rq, __u8 ctx)
{
	__u64 key = (__u64)rq;
	__u64 id = bpf_get_current_pid_tgid();
	struct rq_state s = {};
	struct iolens_counters *c;
	struct rq_state *sp;

	s.dev = rq_dev(rq);
	if (!dev_wanted(s.dev))
		return NULL;
	s.ctx = ctx;
	s.pid = id >> 32;
	s.tid = (__u32)id;
	s.cgroup = bpf_get_current_cgroup_id();
	rq_io_cgroup(rq, &s);
	bpf_get_current_comm(s.comm, sizeof(s.comm));
	if (bpf_map_update_elem(&rqs, &key, &s, BPF_ANY)) {
		c = counters_get();
		if (c)
			c->untracked++;
		return NULL;
	}
	sp = bpf_map_lookup_elem(&rqs, &key);
	return sp;
}

static __always_inline int on_io_start(struct request *rq)
{
	struct rq_state *s = rq_track(rq, IOLENS_CTX_SUBMIT);

	if (s)
		s->ts_start = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int on_insert(struct request *rq)
{
	__u64 key = (__u64)rq;
	struct rq_state *s = bpf_map_lookup_elem(&rqs, &key);

	if (!s)
		s = rq_track(rq, IOLENS_CTX_INSERT);
	if (s)
		s->ts_insert = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int on_issue(struct request *rq)
{
	__u64 key = (__u64)rq;
	struct rq_state *s = bpf_map_lookup_elem(&rqs, &key);
	__s64 zero = 0, *n;

	if (!s)
		s = rq_track(rq, IOLENS_CTX_ISSUE);
	if (!s)
		return 0;
	s->ts_issue = bpf_ktime_get_ns();
	s->sector = BPF_CORE_READ(rq, __sector);
	s->bytes = BPF_CORE_READ(rq, __data_len);
	n = bpf_map_lookup_elem(&inflight, &s->dev);
	if (!n) {
		bpf_map_update_elem(&inflight, &s->dev, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&inflight, &s->dev);
		if (!n)
			return 0;
	}
	s->qd = __sync_fetch_and_add(n, 1) + 1;
	return 0;
}

/* The request goes back to the queue and will be issued again. */
static __always_inline int on_requeue(struct request *rq)
{
	__u64 key = (__u64)rq;
	struct rq_state *s = bpf_map_lookup_elem(&rqs, &key);
	__s64 *n;

	if (!s || !s->ts_issue)
		return 0;
	n = bpf_map_lookup_elem(&inflight, &s->dev);
	if (n)
		__sync_fetch_and_add(n, -1);
	s->ts_issue = 0;
	s->qd = 0;
	s->requeues++;
	return 0;
}

/* The request was merged into another and is freed without completing. */
static __always_inline int on_merge(struct request *rq)
{
	__u64 key = (__u64)rq;

	bpf_map_delete_elem(&rqs, &key);
	return 0;
}

static __always_inline int on_complete(struct request *rq, u8 status,
				       unsigned int nr_bytes)
{
	__u64 key = (__u64)rq;
	struct iolens_counters *c;
	struct rq_state *s;
	struct iolens_rq *e;
	__u32 dev;
	__s64 *n;

	/* A partial completion (blk_update_request with fewer bytes than
	 * remain) is not the end of the request. */
	if (nr_bytes < BPF_CORE_READ(rq, __data_len))
		return 0;

	s = bpf_map_lookup_elem(&rqs, &key);
	dev = s ? s->dev : rq_dev(rq);
	if (!s && !dev_wanted(dev))
		return 0;
	if (s && s->ts_issue) {
		n = bpf_map_lookup_elem(&inflight, &dev);
		if (n)
			__sync_fetch_and_add(n, -1);
	}

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		c = counters_get();
		if (c)
			c->lost++;
		goto out;
	}
	e->ts_complete = bpf_ktime_get_ns();
	e->dev = dev;
	e->kflags = BPF_CORE_READ(rq, cmd_flags);
	e->status = status;
	e->flags = 0;
	e->op = 0;
	if (s) {
		e->ts_start = s->ts_start;
		e->ts_insert = s->ts_insert;
		e->ts_issue = s->ts_issue;
		e->sector = s->ts_issue ? s->sector : BPF_CORE_READ(rq, __sector);
		e->bytes = s->ts_issue ? s->bytes : nr_bytes;
		e->cgroup = s->cgroup;
		e->io_cgroup = s->io_cgroup;
		e->io_cgroup_hier = s->io_cgroup_hier;
		e->pid = s->pid;
		e->tid = s->tid;
		e->qd = s->qd;
		e->ctx = s->ctx;
		e->requeues = s->requeues;
		__builtin_memcpy(e->comm, s->comm, sizeof(e->comm));
	} else {
		/* In flight before we attached: only what the request itself
		 * still knows.  Its sector has not advanced yet: the
		 * tracepoint fires before blk_update_request does. */
		e->ts_start = 0;
		e->ts_insert = 0;
		e->ts_issue = 0;
		e->sector = BPF_CORE_READ(rq, __sector);
		e->bytes = nr_bytes;
		e->cgroup = 0;
		e->io_cgroup = 0;
		e->io_cgroup_hier = 0;
		e->pid = 0;
		e->tid = 0;
		e->qd = 0;
		e->ctx = IOLENS_CTX_NONE;
		e->requeues = 0;
		__builtin_memset(e->comm, 0, sizeof(e->comm));
	}
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= WAKEUP_BYTES)
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	else
		bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
out:
	if (s)
		bpf_map_delete_elem(&rqs, &key);
	return 0;
}

/* tp_btf flavour (BTF-typed arguments). */
SEC("tp_btf/block_io_start")
int BPF_PROG(btf_io_start, struct request *rq) { return on_io_start(rq); }
SEC("tp_btf/block_rq_insert")
int BPF_PROG(btf_insert, struct request *rq) { return on_insert(rq); }
SEC("tp_btf/block_rq_issue")
int BPF_PROG(btf_issue, struct request *rq) { return on_issue(rq); }
SEC("tp_btf/block_rq_requeue")
int BPF_PROG(btf_requeue, struct request *rq) { return on_requeue(rq); }
SEC("tp_btf/block_rq_merge")
int BPF_PROG(btf_merge, struct request *rq) { return on_merge(rq); }
SEC("tp_btf/block_rq_complete")
int BPF_PROG(btf_complete, struct request *rq, blk_status_t status,
	     unsigned int nr_bytes)
{
	return on_complete(rq, status, nr_bytes);
}

/* raw_tp flavour: same arguments, read through CO-RE probe reads. */
SEC("raw_tp/block_io_start")
int BPF_PROG(raw_io_start, struct request *rq) { return on_io_start(rq); }
SEC("raw_tp/block_rq_insert")
int BPF_PROG(raw_insert, struct request *rq) { return on_insert(rq); }
SEC("raw_tp/block_rq_issue")
int BPF_PROG(raw_issue, struct request *rq) { return on_issue(rq); }
SEC("raw_tp/block_rq_requeue")
int BPF_PROG(raw_requeue, struct request *rq) { return on_requeue(rq); }
SEC("raw_tp/block_rq_merge")
int BPF_PROG(raw_merge, struct request *rq) { return on_merge(rq); }
SEC("raw_tp/block_rq_complete")
int BPF_PROG(raw_complete, struct request *rq, blk_status_t status,
	     unsigned int nr_bytes)
{
	return on_complete(rq, status, nr_bytes);
}
