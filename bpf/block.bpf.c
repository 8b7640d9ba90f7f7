// SPDX-License-Identifier: GPL-2.0
/*
 * Per-request block tracer: one struct iolens_rq per completed request.
 *
 * A request is filled in place in `rqs`, a 4-way set-associative table in a
 * BPF array indexed by a hash of the request's address, from its first
 * sighting to its completion, when it is copied to the ring buffer.  Array
 * lookups are inlined by the verifier and a slot is claimed with one
 * compare-and-swap, so the hot path takes no lock and allocates nothing:
 * a hash map (bucket locks, per-CPU free lists raided across CPUs since
 * requests complete on other CPUs than they start) cost several times more,
 * and so did one ring buffer record per tracepoint.
 *
 * Only tracepoints: kprobes and fentry are unavailable on the kernels iolens
 * targets (DESIGN.md section 4).  The hooks are instantiated twice from
 * block_hooks.bpf.h: as tp_btf, reading struct request with direct BTF loads
 * (a plain load each), and as raw_tp, reading it with CO-RE probe reads (a
 * helper call each) for kernels where tp_btf does not attach.  Userspace
 * loads one flavour.  Helper calls are what costs here (each is an indirect
 * call, tens of ns with this VM's mitigations): the tp_btf hooks make one or
 * two each.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "block.h"
#include "devfilter.bpf.h"
#include "rq_hook.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile struct iolens_block_cfg cfg = {};

#include "rqfile.bpf.h"

#define RQ_WAYS 4
#define RQ_SET_BITS 13
#define RQ_SETS (1 << RQ_SET_BITS)

/* Mmapable: userspace reads it in place for requests stuck in flight
 * (block_trace_inflight()); lookups stay inlined. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, RQ_SETS * RQ_WAYS);
	__type(key, __u32);
	__type(value, struct iolens_rq_slot);
} rqs SEC(".maps");

/* Requests issued and not completed, per disk: only those whose issue was
 * seen, so requests in flight at attach are not counted.  A direct-mapped
 * array (inlined lookup) with the hash map behind it for the rare disk whose
 * array slot another disk holds. */
#define INFLIGHT_SLOTS 1024

struct inflight_slot {
	__u32 dev;		/* owner; 0 = free */
	__u32 pad;
	__s64 n;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, INFLIGHT_SLOTS);
	__type(key, __u32);
	__type(value, struct inflight_slot);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __s64);
} inflight_more SEC(".maps");

/*
 * Records go to one of cfg.nrings ring buffers, each drained by its own
 * thread: with one ring, one lock every CPU's completions take and one
 * consumer, snoop topped out near 500k requests/s.  The loader makes the rings
 * (all of one size: an inner map's max_entries must match the template's)
 * and puts them in `rings`; a ring buffer may be an inner map since Linux
 * 5.8, where ring buffers came.
 */
struct ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, IOLENS_RINGS_MAX);
	__type(key, __u32);
	__array(values, struct ring);
} rings SEC(".maps");

/*
 * A record in the ring of request `key` (its address); NULL if that is
 * full.  By request, not by CPU: completions may all run on one CPU (a
 * loop device's worker, one interrupt vector), and one consumer would
 * then take all the load.  A request's address is random enough.
 */
static __always_inline struct iolens_rq *ring_reserve(__u64 key)
{
	/* Without files, records end before the file's numbers: cfg is
	 * read-only, so the verifier knows which size it is. */
	__u32 size = cfg.files ? sizeof(struct iolens_rq) : sizeof(struct iolens_rq_base);
	__u32 n = cfg.nrings;
	__u32 h = (__u32)(((key >> 6) * 0x9e3779b97f4a7c15ULL) >> 32);
	/* h scaled to [0, n): no division on the completion path. */
	__u32 i = n > 1 ? (__u32)(((__u64)h * n) >> 32) : 0;
	void *rb = bpf_map_lookup_elem(&rings, &i);

	return rb ? bpf_ringbuf_reserve(rb, size, 0) : NULL;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iolens_counters);
} counters SEC(".maps");

static __always_inline struct iolens_counters *counters_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counters, &zero);
}

/* The kernel stacks that submitted requests, with cfg.stacks (else one
 * entry).  No BPF_F_REUSE_STACKID: a stack whose bucket another holds is
 * IOLENS_STACK_LOST, never taken for that other. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, IOLENS_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* With files, the file's numbers of the request in the same slot of `rqs`
 * (set where it is first seen); else one entry. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RQ_SETS * RQ_WAYS);
	__type(key, __u32);
	__type(value, struct iolens_rq_file);
} rq_files SEC(".maps");

/* Record e of the request in slot `idx`, with files: its file's numbers. */
static __always_inline void file_copy(struct iolens_rq *e, __u32 idx)
{
	struct iolens_rq_file *f;

	if (!cfg.files)
		return;
	f = bpf_map_lookup_elem(&rq_files, &idx);
	e->fdev = f ? f->fdev : 0;
	e->fgen = f ? f->fgen : 0;
	e->ino = f ? f->ino : 0;
}

/* Userspace makes it one entry unless attach asks for it (it is
 * preallocated). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOLENS_PROC_BIOS_MAX);
	__type(key, __u32);
	__type(value, struct iolens_proc_bios);
} proc_bios SEC(".maps");

/* The entry of a process not in `proc_bios` yet, made from `init`;
 * NULL, counted, when the map is full. */
static __always_inline struct iolens_proc_bios *proc_bios_make(__u32 tgid,
							       const struct iolens_proc_bios *init)
{
	struct iolens_proc_bios *p;
	struct iolens_counters *c;

	/* Another CPU may make it first: then NOEXIST fails and the lookup
	 * finds theirs. */
	bpf_map_update_elem(&proc_bios, &tgid, init, BPF_NOEXIST);
	p = bpf_map_lookup_elem(&proc_bios, &tgid);
	if (!p) {
		c = counters_get();
		if (c)
			c->bios_untracked++;
	}
	return p;
}

/*
 * The verifier forbids arithmetic on a tp_btf argument (a trusted BTF
 * pointer), so its address cannot be hashed as is, and a partial fill of it
 * spilled to the stack is refused too.  A map value holds no pointer type:
 * stored there (allowed with CAP_PERFMON, which tracing needs anyway) it
 * reads back as a number.  One slot per hook and CPU: a completion in
 * interrupt context can run in the middle of another hook on this CPU, but
 * the kernel never nests a program inside itself on one CPU (it skips the
 * inner run: complete_rescue is a program of its own for that).  volatile
 * keeps the compiler from forwarding the store.
 */
enum scratch_slot {
	SCRATCH_START,
	SCRATCH_INSERT,
	SCRATCH_ISSUE,
	SCRATCH_REQUEUE,
	SCRATCH_MERGE,
	SCRATCH_COMPLETE,
	SCRATCH_RESCUE,
	SCRATCH_NR,
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRATCH_NR);
	__type(key, __u32);
	__type(value, __u64);
} scratch SEC(".maps");

static __always_inline __u64 ptr_value(const void *p, __u32 slot)
{
	volatile __u64 *v = bpf_map_lookup_elem(&scratch, &slot);

	if (!v)
		return 0;
	*v = (__u64)p;
	return *v;
}

static __always_inline __u32 set_base(__u64 key)
{
	/* Requests are at least a cache line apart: drop those bits, then
	 * a multiplicative hash spreads neighbours across sets. */
	return (__u32)(((key >> 6) * 0x9e3779b97f4a7c15ULL) >> (64 - RQ_SET_BITS)) *
	       RQ_WAYS;
}

/* The slot of request `key`, its index in *idx; NULL if none. */
static __always_inline struct iolens_rq_slot *slot_find(__u64 key, __u32 *idx)
{
	__u32 base = set_base(key);

	for (__u32 w = 0; w < RQ_WAYS; w++) {
		__u32 i = base + w;
		struct iolens_rq_slot *s = bpf_map_lookup_elem(&rqs, &i);

		if (s && s->key == key) {
			*idx = i;
			return s;
		}
	}
	return NULL;
}

static __always_inline __u16 inflight_add(__u32 dev, __s64 d)
{
	__u32 idx = (dev >> 20) * 61 + (dev & 0xfffff);
	struct inflight_slot *f;
	__s64 zero = 0, *n;

	idx %= INFLIGHT_SLOTS;
	f = bpf_map_lookup_elem(&inflight, &idx);
	if (f && (f->dev == dev ||
		  (!f->dev && !__sync_val_compare_and_swap(&f->dev, 0, dev))))
		return __sync_fetch_and_add(&f->n, d) + d;
	n = bpf_map_lookup_elem(&inflight_more, &dev);
	if (!n) {
		bpf_map_update_elem(&inflight_more, &dev, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&inflight_more, &dev);
		if (!n)
			return 0;
	}
	return __sync_fetch_and_add(n, d) + d;
}

/*
 * The request in `s` ended without its completion reaching us: its memory is
 * being reused.  On the 6.18 kernel here, block_rq_complete runs from a
 * softirq now and then without the BPF programs attached to it being run
 * or a recursion miss being counted, while tracefs sees the event.  Report
 * the request with its completion unknown (ts_complete 0) rather than drop
 * it, and stop counting it in flight.
 */
static __always_inline void slot_unseen(struct iolens_rq_slot *s, __u32 idx)
{
	struct iolens_counters *c = counters_get();
	struct iolens_rq *e;

	if (s->rq.ts_issue)
		inflight_add(s->rq.dev, -1);
	if (c)
		c->unseen++;
	e = ring_reserve(s->key);
	if (!e) {
		if (c)
			c->lost++;
		return;
	}
	__builtin_memcpy(e, &s->rq, sizeof(s->rq));
	file_copy(e, idx);
	e->ts_complete = 0;
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

/* The slot, zeroed, for a new request: first clock reading `now`. */
static __always_inline struct iolens_rq_slot *slot_reset(struct iolens_rq_slot *s,
							 __u64 now)
{
	s->seen = now;
	__builtin_memset(&s->rq, 0, sizeof(s->rq));
	return s;
}

/* A slot whose request ended unseen, reported and reset for a new one. */
static __always_inline struct iolens_rq_slot *slot_recycle(struct iolens_rq_slot *s,
							   __u32 idx, __u64 now)
{
	slot_unseen(s, idx);
	return slot_reset(s, now);
}

/*
 * A zeroed slot for a new request at `key`, which holds none (callers look
 * with slot_find() first): a free way, else the way of a request gone stale.
 * NULL, counted, if the set holds only live requests.  `now` is 0 from
 * block_io_start, which reads no clock (see on_start): never stale then.
 */
static __always_inline struct iolens_rq_slot *slot_claim(__u64 key, __u64 now,
							 __u32 *idx)
{
	__u32 base = set_base(key);
	struct iolens_counters *c;
	struct iolens_rq_slot *s;

	for (__u32 w = 0; w < RQ_WAYS; w++) {
		__u32 i = base + w;

		s = bpf_map_lookup_elem(&rqs, &i);
		if (s && !s->key && !__sync_val_compare_and_swap(&s->key, 0, key)) {
			*idx = i;
			return slot_reset(s, now);
		}
	}
	for (__u32 w = 0; w < RQ_WAYS; w++) {
		__u32 i = base + w;
		__u64 old;

		s = bpf_map_lookup_elem(&rqs, &i);
		if (!s)
			continue;
		old = s->key;
		if (old && s->seen && now > s->seen + IOLENS_STALE_NS &&
		    __sync_val_compare_and_swap(&s->key, old, key) == old) {
			*idx = i;
			return slot_recycle(s, i, now);
		}
	}
	c = counters_get();
	if (c)
		c->untracked++;
	return NULL;
}

/* Hands the slot back.  Our reads of it must not pass this store: a
 * compiler barrier suffices on x86 (stores are not reordered with earlier
 * loads); weaker architectures would want a store-release, which clang 14
 * cannot emit for BPF. */
static __always_inline void slot_release(struct iolens_rq_slot *s)
{
	asm volatile("" ::: "memory");
	s->key = 0;
}

/* tp_btf: arguments are BTF pointers, plain loads are allowed and cheap. */
#define FLAVOUR		"tp_btf/"
#define FN(name)	btf_##name
#define RD(p, f)	((p)->f)
#define RD2(p, a, b)	((p)->a->b)
#define KEY(p, slot)	ptr_value(p, slot)
#define CURRENT()	bpf_get_current_task_btf()
#define COMM(dst, t)	__builtin_memcpy(dst, (t)->comm, IOLENS_COMM_LEN)
#include "block_hooks.bpf.h"
#undef FLAVOUR
#undef FN
#undef RD
#undef RD2
#undef KEY
#undef CURRENT
#undef COMM

/* raw_tp: arguments are plain numbers, every load goes through a helper. */
#define FLAVOUR		"raw_tp/"
#define FN(name)	raw_##name
#define RD(p, f)	BPF_CORE_READ(p, f)
#define RD2(p, a, b)	BPF_CORE_READ(p, a, b)
#define KEY(p, slot)	((__u64)(p))
#define CURRENT()	((struct task_struct *)bpf_get_current_task())
#define COMM(dst, t)	bpf_core_read(dst, IOLENS_COMM_LEN, &(t)->comm)
#include "block_hooks.bpf.h"
