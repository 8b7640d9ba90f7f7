/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agg.bpf.c's histograms: one copy of each shared by all CPUs (`hists`),
 * the per-CPU tier in front of it for values that repeat (`hist_pend`),
 * and the splits of `iolens lat -P/-F` and top (`lat_hists`).  Included
 * once by agg.bpf.c, after agg_counters.bpf.h (struct where).
 */
#ifndef IOLENS_AGG_HIST_BPF_H
#define IOLENS_AGG_HIST_BPF_H

/*
 * The histograms: one copy shared by all CPUs, added to atomically, not
 * one per CPU.  At 8,964 bytes each (HIST_BUCKETS 32-bit counts), per CPU
 * they took nslots * op groups * kinds * CPUs: 9 MB a CPU for 60 disks,
 * 2.4 GB on 256 CPUs.  Userspace reads them in place (mmap), no syscall
 * per histogram.  Atomic adds to lines all CPUs write cost up to a third
 * more per request than per-CPU adds when CPUs complete I/O at once
 * (measured: tools/bench_stat.py --baseline), so sizes and queue depths,
 * which repeat, reach them through a per-CPU entry that holds the last
 * bucket (hist_pend, below).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);		/* nslots * IOLENS_SG_NR * nkinds */
	__type(key, __u32);
	__type(value, struct iolens_hist);
} hists SEC(".maps");

/* See struct iolens_hist_pend: a plain array, mmapable, as userspace
 * reads it in place. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);		/* possible CPUs * IOLENS_H_NR */
	__type(key, __u32);
	__type(value, struct iolens_hist_pend);
} hist_pend SEC(".maps");

/* Not preallocated: a split costs 9 KiB, and few of the possible ones
 * occur. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);		/* set with IOLENS_STAT_BY_PROC/_FLAGS */
	__type(key, struct iolens_lat_key);
	__type(value, struct iolens_lat_hist);
} lat_hists SEC(".maps");

/* What a new entry of lat_hists starts from. */
struct iolens_lat_hist zero_hist = {};

/* A value into lat_hists, `d` = 1, or -1 to take one back: the split
 * entry, created on first use.  Counts are differences modulo 2^32 to
 * userspace, so a take-back on any CPU cancels. */
static __always_inline void keyed_put(const struct where *w, int kind, __u64 v,
				      int d)
{
	struct iolens_lat_key key = {
		.flags = w->flags, .slot = w->slot, .sg = w->sg, .kind = kind,
		.hwq = w->hwq, .status = w->status,
	};
	struct iolens_stat_counters *c;
	struct iolens_lat_hist *h;
	__u64 b;

	if (w->owner) {
		key.tgid = w->owner->tgid;
		key.io_hier = w->owner->io_hier;
		key.io_cgroup = w->owner->io_cgroup;
		key.stack = w->owner->stack;
	}
	if (cfg.flags & IOLENS_STAT_KEY_CGROUP) {
		key.io_hier = w->cg_hier;
		key.io_cgroup = w->cg_id;
	}
	h = bpf_map_lookup_elem(&lat_hists, &key);
	if (!h) {
		bpf_map_update_elem(&lat_hists, &key, &zero_hist, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&lat_hists, &key);
		if (!h) {
			c = losses();
			if (c)
				c->no_key++;
			return;
		}
		if (w->owner)
			__builtin_memcpy(h->comm, w->owner->comm, IOLENS_COMM_LEN);
	}
	__sync_fetch_and_add(&h->sum, d * v);
	b = hist_bucket(v);
	if (b < HIST_BUCKETS)
		__sync_fetch_and_add(&h->b[b], d);
}

/* Bounds how long n can grow before it goes to `hists`: far from
 * wrapping, and userspace adds it in anyway. */
#define PEND_MAX (1U << 24)

/* One value of bucket `b` of histogram `idx`, kind index `k`, through this
 * CPU's entry: false where it must go straight to `hists` (a program of
 * this CPU that it interrupted is changing the entry). */
static __always_inline bool pend_add(int k, __u32 idx, __u32 b)
{
	__u32 key = bpf_get_smp_processor_id() * IOLENS_H_NR + k;
	struct iolens_hist_pend *p = bpf_map_lookup_elem(&hist_pend, &key);
	struct iolens_hist *h;
	__u32 old, ob, n;

	if (!p || __sync_val_compare_and_swap(&p->busy, 0, 1))
		return false;
	n = p->n;
	if (n && p->idx == idx && p->b == b && n < PEND_MAX) {
		p->n = n + 1;
		p->busy = 0;
		return true;
	}
	__sync_fetch_and_add(&p->begin, 1);
	old = p->idx;
	ob = p->b;
	h = n ? bpf_map_lookup_elem(&hists, &old) : NULL;
	if (h && ob < HIST_BUCKETS)
		__sync_fetch_and_add(&h->b[ob], n);
	p->idx = idx;
	p->b = b;
	p->n = 1;
	__sync_fetch_and_add(&p->end, 1);
	p->busy = 0;
	return true;
}

static __always_inline void hist_add_one(const struct where *w, int kind,
					 __u64 v, int d)
{
	int k = cfg.hist_slot[kind];
	struct iolens_hist *h;
	__u32 idx;
	__u64 b;

	if (k < 0)
		return;
	if (cfg.flags & IOLENS_STAT_KEYED) {
		keyed_put(w, kind, v, d);
		return;
	}
	idx = (w->slot * IOLENS_SG_NR + w->sg) * cfg.nkinds + k;
	b = hist_bucket(v);
	if (b >= HIST_BUCKETS)
		return;
	/* Sizes and depths repeat; latencies mostly move to another of
	 * their fine buckets, where the entry would only add a step. */
	if (d == 1 && (kind == IOLENS_H_SIZE || kind == IOLENS_H_QD) &&
	    pend_add(k, idx, b))
		return;
	h = bpf_map_lookup_elem(&hists, &idx);
	if (h)
		__sync_fetch_and_add(&h->b[b], d);
}

static __always_inline void hist_put(const struct where *w, int kind, __u64 v)
{
	hist_add_one(w, kind, v, 1);
}

#endif
