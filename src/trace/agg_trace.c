// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/clock.h"
#include "bpf/agg.h"
#include "agg.skel.h"	/* after its ABI header: its rodata holds our cfg */
#include "trace/kfacts.h"
#include "trace/agg_trace.h"
#include "trace/fdlimit.h"
#include "lib/hist.h"
#include "trace/block_trace.h"
#include "lib/devices.h"
#include "lib/diskstats.h"
#include "lib/log.h"
#include "lib/vec.h"
#include "trace/mapmem.h"
#include "trace/tracer.h"
#include "trace/agg_keyed.h"
#include "trace/agg_fail.h"
#include "trace/agg_hwq.h"
#include "trace/agg_inflight.h"
#include "trace/agg_labels.h"
#include "trace/agg_slots.h"

#define NPROGS 13

const char *const agg_group_names[IOLENS_SG_NR] = {
	[IOLENS_SG_READ] = "read", [IOLENS_SG_WRITE] = "write",
	[IOLENS_SG_DISCARD] = "discard", [IOLENS_SG_FLUSH] = "flush",
};

/* Splits by process and flags: entries of lat_hists, and of the owner map
 * that remembers each request's submitter until it completes. */
#define KEYED_MAX 4096
#define OWNERS_MAX 16384
/* owner_slots (bpf/agg_counters.bpf.h): 1.5 MiB; a request loses its
 * submitter to another in flight one time in OWNER_SLOTS / in flight. */
#define OWNER_SLOTS 65536
/* Keys of failures: per device, op group and status; per process too for
 * top. */
#define FAILS_MAX 1024
#define FAILS_BY_PROC_MAX 4096

struct slot_state {
	struct iolens_stat sum[IOLENS_SG_NR];	/* CPUs summed, at last read */
	__u64 busy;				/* busy time at last read */
	__u64 busy_periods;			/* at last read */
	struct diskstat ds;			/* kernel's, at last read */
	bool seen;				/* read since the slot filled */
	bool bio_based;				/* of dev_info */
	__u32 disk;				/* of dev_info */
	__u32 *raw;				/* its histograms at last read */
	bool hist_read[IOLENS_SG_NR];		/* read this time */
	int stat_fd;				/* its sysfs stat, open */
	bool stat_open;
	struct agg_inflight_base inflight;	/* of missed completions */
	struct iolens_op_count ops[IOLENS_KOPS];	/* at last read */
	struct iolens_hwq_stat *hwq;		/* at last read, with by_hwq */
};

struct agg_trace {
	struct agg *skel;
	struct bpf_link *links[NPROGS];
	int nlinks;
	int ncpu;
	int nslots;
	int nkinds;
	bool split;			/* histograms in lat_hists, not hists */
	int kind_of[IOLENS_H_NR];	/* enabled index -> kind */
	__u64 read_ns, prev_read_ns;
	volatile struct iolens_dev_slot *slots;	/* mmap of `devs` */
	const volatile struct iolens_op_count *ops;	/* mmap of `other_ops` */
	size_t ops_len;
	const volatile struct iolens_hwq_stat *hwq;	/* mmap of `hwq_stats` */
	size_t hwq_len;
	size_t slots_len;
	const volatile char *hists;	/* mmap of `hists` */
	size_t hists_len;
	const volatile struct iolens_hist_pend *pend;	/* mmap of `hist_pend` */
	size_t pend_len;
	size_t hstride;			/* of its values: 8-byte aligned */
	struct slot_state *prev;
	struct agg_dev *cur;
	void *buf;			/* two lookups' per-CPU values */
	struct keyed_set *keyed;	/* lat_hists, when split */
	struct fail_set *fails;		/* failures */
	struct diskstat *ds0;		/* diskstats of every device at attach */
	int nds0;
	bool filtered;			/* only some processes' I/O */
	bool issue_later;		/* agg_issue not attached yet */
	const char *cmd;		/* for messages */
};

static bool filtered(const struct agg_trace_opts *o)
{
	return o->proc && stat_proc_filter_set(o->proc);
}

/* Whether the bio hooks may see a device asked for: they run for every bio
 * of every disk, so not where -d names only request-based ones. */
static bool bio_wanted(const struct agg_trace_opts *o)
{
	struct dev_info info;

	for (int i = 0; i < o->ndev; i++)
		if (dev_lookup(o->devs[i], &info) || info.bio_based)
			return true;
	return !o->ndev;
}

static int configure(struct agg_trace *st, const struct agg_trace_opts *o)
{
	struct iolens_stat_cfg *cfg = (struct iolens_stat_cfg *)&st->skel->rodata->cfg;
	const struct kfacts *kf = kfacts_get();
	int bit = kf->queue_flag_stats, k = 0, err;
	bool lvl, done;

	cfg->ndev = o->ndev;
	for (int i = 0; i < o->ndev; i++)
		cfg->dev[i] = o->devs[i];
	cfg->flags = (o->partitions ? IOLENS_STAT_PARTS : 0) |
		     (o->own_clock ? IOLENS_STAT_OWN_CLOCK : 0) |
		     (o->lat ? IOLENS_STAT_LAT : 0) |
		     (o->by_proc ? IOLENS_STAT_BY_PROC : 0) |
		     (o->by_flags ? IOLENS_STAT_BY_FLAGS : 0) |
		     (filtered(o) ? IOLENS_STAT_PROC_FILTER : 0) |
		     (o->rmw && IOLENS_RMW_COUNTED ? IOLENS_STAT_RMW : 0) |
		     (o->by_hwq ? IOLENS_STAT_BY_HWQ : 0) |
		     (o->key_hwq ? IOLENS_STAT_KEY_HWQ : 0) |
		     (o->key_status ? IOLENS_STAT_KEY_STATUS : 0) |
		     (o->key_cgroup ? IOLENS_STAT_KEY_CGROUP : 0) |
		     (o->key_stack ? IOLENS_STAT_KEY_STACK : 0) |
		     (o->labels & (IOLENS_STAT_LABEL_COMM | IOLENS_STAT_LABEL_CGROUP));
	if (filtered(o))
		cfg->proc = *o->proc;
	/* Without the flag's value we cannot tell which queues stamp issues:
	 * then only where io_start_time_ns is set is the split known. */
	if (bit >= 0) {
		cfg->flags |= IOLENS_STAT_FALLBACK;
		st->skel->rodata->queue_flag_stats = bit;
	}
	st->skel->rodata->rqf_io_stat = kf->rqf_io_stat;
	st->skel->rodata->rqf_flush_seq = kf->rqf_flush_seq;
	for (int i = 0; i < IOLENS_H_NR; i++) {
		cfg->hist_slot[i] = -1;
		if (o->kinds & (1U << i)) {
			st->kind_of[k] = i;
			cfg->hist_slot[i] = k++;
		}
	}
	st->nkinds = k;
	cfg->nkinds = k ? k : 1;
	st->nslots = agg_slots_needed(o);
	cfg->nslots = st->nslots;
	err = bpf_map__set_max_entries(st->skel->maps.devs, st->nslots);
	/* The second half: what the rescue programs count. */
	err = err ?: bpf_map__set_max_entries(st->skel->maps.stats,
					      2 * st->nslots * IOLENS_SG_NR);
	err = err ?: bpf_map__set_max_entries(st->skel->maps.other_ops,
					      st->nslots * IOLENS_KOPS);
	if (!err && o->by_hwq)
		err = bpf_map__set_max_entries(st->skel->maps.hwq_stats,
					       st->nslots * IOLENS_HWQ_MAX);
	st->split = o->by_proc || o->by_flags || o->key_hwq || o->key_status || o->key_cgroup ||
		    o->key_stack;
	err = err ?: bpf_map__set_max_entries(st->skel->maps.hists, st->split ? 1 :
					      st->nslots * IOLENS_SG_NR * cfg->nkinds);
	if (!err && !st->split && st->ncpu > 0)
		err = bpf_map__set_max_entries(st->skel->maps.hist_pend,
					       st->ncpu * IOLENS_H_NR);
	/* No own stamps wanted anywhere: no map either. */
	if (!err && !(cfg->flags & (IOLENS_STAT_FALLBACK | IOLENS_STAT_OWN_CLOCK)))
		err = bpf_map__set_max_entries(st->skel->maps.issue_ts, 1);
	/* The comm label alone keeps submitters in owner_slots, from Linux
	 * 6.5 (block_io_start: one start per request), on x86-64 (its
	 * memory order: see there). */
	if (!err && (o->labels & IOLENS_STAT_LABEL_COMM) && !o->by_proc && !o->key_stack &&
	    !filtered(o) && kf->io_start_done && IS_X86_64) {
		err = bpf_map__set_max_entries(st->skel->maps.owner_slots, OWNER_SLOTS);
		st->skel->rodata->owner_slots_mask = OWNER_SLOTS - 1;
	} else if (!err && (o->by_proc || filtered(o) || o->key_stack ||
			    (o->labels & IOLENS_STAT_LABEL_COMM))) {
		err = bpf_map__set_max_entries(st->skel->maps.owners, OWNERS_MAX);
	}
	/* Buckets of distinct stacks, allocated up front (doctor's "memory
	 * lat by" row counts them). */
	if (!err && o->key_stack)
		err = bpf_map__set_max_entries(st->skel->maps.stacks, IOLENS_STACKS_MAX);
	if (!err && o->labels)
		err = bpf_map__set_max_entries(st->skel->maps.label_counts,
					       o->max_labels);
	if (!err && st->split)
		err = bpf_map__set_max_entries(st->skel->maps.lat_hists, KEYED_MAX);
	if (!err)
		err = bpf_map__set_max_entries(st->skel->maps.failures,
					       o->by_proc ? FAILS_BY_PROC_MAX : FAILS_MAX);
	/* Failures are timed at block_rq_complete where their times end
	 * there: marks only for block_io_done. */
	if (!err && (o->lat || !kf->io_start_done))
		err = bpf_map__set_max_entries(st->skel->maps.fail_marks, 1);
	/* Only the hooks this mode needs run: each costs tens of ns per I/O
	 * even when it does nothing. */
	st->skel->rodata->have_rdonly_cast = kf->rdonly_cast;
	st->skel->rodata->have_io_start = kf->io_start_done;
	/* Each completion hook and its second, by interrupt level where
	 * the preempt count can be read, else by a busy mark (see
	 * bpf/agg.bpf.c's struct first_mark). */
	lvl = kf->preempt_count;
	st->skel->rodata->preempt_count_delta = kf->preempt_count_delta;
	done = !o->lat && kf->io_start_done;
	bpf_program__set_autoload(st->skel->progs.agg_complete, !lvl);
	bpf_program__set_autoload(st->skel->progs.agg_complete_rescue, !lvl);
	bpf_program__set_autoload(st->skel->progs.agg_complete_lvl, lvl);
	bpf_program__set_autoload(st->skel->progs.agg_complete_rescue_lvl, lvl);
	bpf_program__set_autoload(st->skel->progs.agg_done, done && !lvl);
	bpf_program__set_autoload(st->skel->progs.agg_done_rescue, done && !lvl);
	bpf_program__set_autoload(st->skel->progs.agg_done_lvl, done && lvl);
	bpf_program__set_autoload(st->skel->progs.agg_done_rescue_lvl, done && lvl);
	bpf_program__set_autoload(st->skel->progs.agg_bio_queue, bio_wanted(o));
	bpf_program__set_autoload(st->skel->progs.agg_bio_complete, bio_wanted(o));
	bpf_program__set_autoload(st->skel->progs.agg_start, kf->io_start_done &&
				  (cfg->flags & IOLENS_STAT_STARTED));
	return err;
}

/* Gives `d` histograms of the kinds `st` keeps. */
static int agg_dev_init(const struct agg_trace *st, struct agg_dev *d)
{
	__u64 *h = calloc((size_t)IOLENS_SG_NR * st->nkinds * HIST_BUCKETS + 1,
			  sizeof(__u64));

	if (!h)
		return -ENOMEM;
	d->hist_mem = h;
	for (int g = 0; g < IOLENS_SG_NR; g++)
		for (int k = 0; k < st->nkinds; k++, h += HIST_BUCKETS)
			d->hist[g][st->kind_of[k]] = h;
	return 0;
}

static int alloc_state(struct agg_trace *st)
{
	st->prev = calloc(st->nslots, sizeof(*st->prev));
	st->cur = calloc(st->nslots, sizeof(*st->cur));
	/* A key's values and its rescue twin's (see read_slot()). */
	st->buf = malloc(2 * st->ncpu * sizeof(struct iolens_stat));
	st->fails = fail_set_new();
	if (!st->prev || !st->cur || !st->buf || !st->fails)
		return -ENOMEM;
	if (st->split) {
		st->keyed = keyed_set_new();
		if (!st->keyed)
			return -ENOMEM;
	}
	return 0;
}

/* A slot's histograms, at its first read: memory for the disks there
 * are, not for every slot (a slot's are 4 op groups of up to 4 kinds,
 * 18 KiB each). */
static int slot_alloc(struct agg_trace *st, int s)
{
	if (st->cur[s].hist_mem)
		return 0;
	if (agg_dev_init(st, &st->cur[s]))
		return -ENOMEM;
	if (!st->split) {
		st->prev[s].raw = calloc((size_t)IOLENS_SG_NR * st->nkinds,
					 sizeof(struct iolens_hist));
		if (!st->prev[s].raw)
			return -ENOMEM;
	}
	return 0;
}

struct agg_trace *agg_trace_start(const char *cmd,
				    const struct agg_trace_opts *o)
{
	struct agg_trace *st;
	struct bpf_program *progs[NPROGS];
	int err;

	if (tracer_may_start(cmd, o->ndev))
		return NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->ncpu = libbpf_num_possible_cpus();
	st->cmd = cmd;
	/* Before Linux 6.5 (no block_io_start) the issue hook also takes
	 * the submitter, at the first issue. */
	st->issue_later = o->issue_on_demand && o->lat && !o->own_clock &&
			  !(o->kinds & (1U << IOLENS_H_QD | 1U << IOLENS_H_SIZE)) &&
			  (kfacts_get()->io_start_done ||
			   !(o->by_proc || o->rmw || filtered(o) ||
			     (o->labels & IOLENS_STAT_LABEL_COMM)));
	st->skel = agg__open();
	err = st->skel ? configure(st, o) : -errno;
	if (!err && fdlimit_ensure(cmd, st->skel->obj, 0)) {
		agg_trace_stop(st);
		return NULL;
	}
	err = err ?: agg__load(st->skel);
	if (err) {
		tracer_load_failed(cmd, "load the aggregation programs", err);
		agg_trace_stop(st);
		return NULL;
	}
	mapmem_say(cmd, "the aggregation", st->skel->obj, NULL, 0);
	st->slots = mapmem_mmap(st->skel->maps.devs, PROT_READ | PROT_WRITE,
			     &st->slots_len, &err);
	st->hstride = (sizeof(struct iolens_hist) + 7) & ~7UL;
	if (!err)
		st->ops = mapmem_mmap(st->skel->maps.other_ops, PROT_READ, &st->ops_len, &err);
	if (!err && o->by_hwq)
		st->hwq = mapmem_mmap(st->skel->maps.hwq_stats, PROT_READ, &st->hwq_len, &err);
	if (!err)
		st->hists = mapmem_mmap(st->skel->maps.hists, PROT_READ, &st->hists_len, &err);
	if (!err && !st->split)
		st->pend = mapmem_mmap(st->skel->maps.hist_pend, PROT_READ, &st->pend_len, &err);
	err = err ?: st->ncpu > 0 ? alloc_state(st) : st->ncpu;
	if (err) {
		fprintf(stderr, "iolens %s: %s\n", cmd, strerror(-err));
		agg_trace_stop(st);
		return NULL;
	}
	/* Completion first, so that no issue we count lacks its completion
	 * (attach_ns, below, makes that exact); each second program right
	 * after its first: a tracepoint runs its programs in the order they
	 * were attached. */
	progs[0] = st->skel->progs.agg_done;
	progs[1] = st->skel->progs.agg_done_rescue;
	progs[2] = st->skel->progs.agg_done_lvl;
	progs[3] = st->skel->progs.agg_done_rescue_lvl;
	progs[4] = st->skel->progs.agg_complete;
	progs[5] = st->skel->progs.agg_complete_rescue;
	progs[6] = st->skel->progs.agg_complete_lvl;
	progs[7] = st->skel->progs.agg_complete_rescue_lvl;
	progs[8] = st->skel->progs.agg_requeue;
	progs[9] = st->skel->progs.agg_issue;
	progs[10] = st->skel->progs.agg_start;
	progs[11] = st->skel->progs.agg_bio_complete;
	progs[12] = st->skel->progs.agg_bio_queue;
	for (int i = 0; i < NPROGS; i++) {
		struct bpf_link *l;

		if (!bpf_program__autoload(progs[i]) ||
		    (st->issue_later && progs[i] == st->skel->progs.agg_issue))
			continue;
		l = bpf_program__attach(progs[i]);
		if (!l) {
			fprintf(stderr, "iolens %s: cannot attach %s: %s (see 'iolens doctor')\n",
				cmd, bpf_program__section_name(progs[i]), strerror(errno));
			agg_trace_stop(st);
			return NULL;
		}
		st->links[st->nlinks++] = l;
	}
	st->read_ns = mono_ns();
	st->skel->data->attach_ns = st->read_ns;
	/* A disk's first interval starts here, not at boot: its io_ticks,
	 * and a bio-based disk's counts. */
	st->nds0 = diskstats_read(&st->ds0);
	st->filtered = filtered(o);
	return st;
}

/* The kernel's counters of `dev` when we attached: 0 for a disk made
 * since, whose every tick is ours. */
static void stats_at_attach(const struct agg_trace *st, __u32 dev,
			    struct diskstat *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < st->nds0; i++)
		if (st->ds0[i].dev == dev)
			*out = st->ds0[i];
}

static int read_slot(struct agg_trace *st, int s)
{
	volatile struct iolens_dev_slot *ds = &st->slots[s];
	struct slot_state *p = &st->prev[s];
	struct agg_dev *d = &st->cur[s];
	int sfd = bpf_map__fd(st->skel->maps.stats);
	struct iolens_stat sum[IOLENS_SG_NR];
	struct diskstat kernel;
	__u64 busy, since, now;
	bool have_kernel;
	__s64 n;

	if (slot_alloc(st, s))
		return -ENOMEM;
	d->dev = ds->dev;
	/* Each key with its twin in the half the rescue programs count
	 * into (bpf/agg.bpf.c's struct first_mark), summed as if from
	 * twice the CPUs. */
	for (__u32 g = 0; g < IOLENS_SG_NR; g++) {
		__u32 key = s * IOLENS_SG_NR + g;
		__u32 twin = key + st->nslots * IOLENS_SG_NR;
		struct iolens_stat *v = st->buf;

		if (bpf_map_lookup_elem(sfd, &key, v) ||
		    bpf_map_lookup_elem(sfd, &twin, v + st->ncpu))
			return -errno;
		agg_stat_sum(&sum[g], v, 2 * st->ncpu);
	}
	if (!p->seen) {
		struct dev_info info;

		p->seen = true;
		stats_at_attach(st, ds->dev, &p->ds);
		p->disk = ds->dev;
		if (!dev_lookup(ds->dev, &info)) {
			p->bio_based = info.bio_based;
			p->disk = info.disk;
		}
	}
	d->bio_based = p->bio_based;
	d->missed = agg_inflight_reconcile(&p->inflight, ds, p->sum, sum);
	/* The kernel's io_ticks and ours read at one moment: a preemption
	 * between the two would move time from one interval to the next in
	 * one of them only, and look like a missed completion. */
	d->io_ticks_ns = 0;
	/* Kept open: a read an interval, no walk through sysfs per slot.
	 * Reopened after a failure: a device of the same number may come
	 * back (a loop device attached again). */
	if (!p->stat_open) {
		p->stat_fd = diskstat_open(d->dev);
		p->stat_open = p->stat_fd >= 0;
	}
	have_kernel = p->stat_open && !diskstat_read_fd(p->stat_fd, d->dev, &kernel);
	if (!have_kernel && p->stat_open) {
		close(p->stat_fd);
		p->stat_open = false;
	}
	d->gone = !have_kernel;
	d->weighted_ns = 0;
	d->inflight_now = 0;
	if (have_kernel) {
		d->io_ticks_ns = (kernel.io_ticks_ms - p->ds.io_ticks_ms) * 1000000ULL;
		d->weighted_ns = (kernel.weighted_ms - p->ds.weighted_ms) * 1000000ULL;
		d->inflight_now = kernel.in_flight;
	}
	now = mono_ns();
	/* The open busy period counts up to now. */
	busy = ds->busy_ns;
	since = ds->busy_since;
	n = ds->inflight - ds->leaked;
	if (n > 0 && since && now > since)
		busy += now - since;
	/* A busy period ended by a missed completion never closed: what was
	 * counted for it so far is lost with it, and was partly idle. */
	d->busy_ns = busy > p->busy && !d->missed ? busy - p->busy : 0;
	p->busy = busy;
	d->busy_periods = ds->busy_periods - p->busy_periods;
	p->busy_periods += d->busy_periods;
	agg_inflight_ages(&p->inflight, ds, now, d);
	agg_dev_other_ops(d, p->ops, st->ops + (size_t)s * IOLENS_KOPS);
	if (st->hwq && agg_hwq_delta(d, &p->hwq, st->hwq + (size_t)s * IOLENS_HWQ_MAX))
		return -ENOMEM;
	for (__u32 g = 0; g < IOLENS_SG_NR; g++) {
		__u32 key = s * IOLENS_SG_NR + g;

		/* Every histogram value comes with a change of a counter of
		 * its group: where none changed, its buckets are not read (most
		 * groups of most disks are idle most intervals).  A value that
		 * landed after the counters were read is then counted in the
		 * next interval, as it would be anyway. */
		bool idle = !memcmp(&sum[g], &p->sum[g], sizeof(sum[g]));

		p->hist_read[g] = !idle && !st->split;
		agg_stat_sub(&d->op[g], &sum[g], &p->sum[g]);
		p->sum[g] = sum[g];
		for (int k = 0; k < st->nkinds && !st->split; k++) {
			int kind = st->kind_of[k];

			if (idle) {
				if (d->hist_n[g][kind])
					memset(d->hist[g][kind], 0, HIST_BUCKETS * sizeof(__u64));
				d->hist_n[g][kind] = 0;
				continue;
			}
			d->hist_n[g][kind] =
				agg_hist_delta((const volatile struct iolens_hist *)
					   (st->hists + (key * st->nkinds + k) * st->hstride),
					   p->raw + (g * st->nkinds + k) * (size_t)HIST_BUCKETS,
					   d->hist[g][kind]);
		}
	}
	if (have_kernel) {
		if (p->bio_based && !st->filtered)
			agg_dev_kernel_counts(d, &kernel, &p->ds);
		p->ds = kernel;
	}
	return 0;
}

int agg_trace_nkeyed(const struct agg_trace *st)
{
	return st->keyed ? keyed_set_count(st->keyed) : 0;
}

const struct agg_keyed *agg_trace_keyed(const struct agg_trace *st, int i)
{
	return keyed_set_get(st->keyed, i);
}

/*
 * A slot holds the I/O addressed to its device: a disk's slot none of its
 * partitions' (see the BPF side), and callers sum them.  The kernel's
 * counts of a bio-based disk include its partitions': theirs are taken
 * off.
 */
static void disk_own_counts(struct agg_trace *st)
{
	for (int s = 0; s < st->nslots; s++) {
		struct agg_dev *disk = &st->cur[s];

		if (!disk->dev || !st->prev[s].bio_based || st->filtered ||
		    st->prev[s].disk != disk->dev)
			continue;
		for (int k = 0; k < st->nslots; k++) {
			if (k == s || !st->cur[k].dev || st->prev[k].disk != disk->dev)
				continue;
			for (int g = 0; g < IOLENS_SG_NR; g++) {
				struct iolens_stat *o = &disk->op[g];
				const struct iolens_stat *q = &st->cur[k].op[g];

				o->ios -= q->ios;
				o->bytes -= q->bytes;
				o->merges -= q->merges;
				o->timed -= q->timed;
				o->total_ns -= q->total_ns;
			}
		}
	}
}

/*
 * Adds what the CPUs hold in hist_pend to the histograms read this time,
 * and to what they were read as: after the buckets themselves, so that a
 * value a CPU moved from its entry to `hists` in between is at worst
 * missed now and counted next time, never counted twice.  An entry caught
 * changing is skipped for the same reason.  `raw` then holds bucket plus
 * pending; a pending value later added to the bucket leaves the sum as it
 * was, and the arithmetic is modulo 2^32 as the counts are.
 */
static void add_pending(struct agg_trace *st)
{
	if (!st->pend)
		return;
	for (int c = 0; c < st->ncpu; c++) {
		for (int k = 0; k < st->nkinds; k++) {
			const volatile struct iolens_hist_pend *e =
				&st->pend[c * IOLENS_H_NR + k];
			__u32 end = e->end, idx, b, n, s, g;
			__u64 *out, was;
			int kind;

			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			idx = e->idx;
			b = e->b;
			n = e->n;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (e->begin != end || !n || b >= HIST_BUCKETS ||
			    idx % st->nkinds != (__u32)k)
				continue;
			s = idx / st->nkinds / IOLENS_SG_NR;
			g = idx / st->nkinds % IOLENS_SG_NR;
			if (s >= (__u32)st->nslots || !st->prev[s].hist_read[g])
				continue;
			kind = st->kind_of[k];
			out = &st->cur[s].hist[g][kind][b];
			was = *out;
			*out = (__u32)(was + n);
			st->cur[s].hist_n[g][kind] += *out - was;
			st->prev[s].raw[(size_t)(g * st->nkinds + k) * HIST_BUCKETS + b] += n;
		}
	}
}

/* agg_issue, once a completion lacked the kernel's issue stamp: from
 * then on requests of queues that keep none get ours.  Those completed
 * before stay counted as no_stamp, out of the queue and device split. */
static void issue_attach_late(struct agg_trace *st)
{
	struct iolens_stat_counters lost;
	struct bpf_link *l;

	agg_trace_losses(st, &lost);
	if (!lost.no_stamp)
		return;
	st->issue_later = false;
	l = bpf_program__attach(st->skel->progs.agg_issue);
	if (!l) {
		fprintf(stderr, "iolens %s: cannot attach %s: %s; the queue and device times of queues without the kernel's issue stamp stay unknown\n",
			st->cmd, bpf_program__section_name(st->skel->progs.agg_issue),
			strerror(errno));
		return;
	}
	st->links[st->nlinks++] = l;
}

int agg_trace_read(struct agg_trace *st)
{
	__u64 now = mono_ns();
	int err;

	if (st->issue_later)
		issue_attach_late(st);

	if (st->keyed) {
		err = keyed_set_read(st->keyed, bpf_map__fd(st->skel->maps.lat_hists),
				     bpf_map__fd(st->skel->maps.stacks), st->slots, st->nslots);
		if (err)
			return err;
	}
	err = fail_set_read(st->fails, bpf_map__fd(st->skel->maps.failures),
			    st->slots, st->nslots);
	if (err)
		return err;
	for (int s = 0; s < st->nslots; s++) {
		if (!st->slots[s].dev)
			continue;
		err = read_slot(st, s);
		if (err)
			return err;
	}
	add_pending(st);
	disk_own_counts(st);
	st->prev_read_ns = st->read_ns;
	st->read_ns = now;
	return 0;
}

__u64 agg_trace_read_ns(const struct agg_trace *st)
{
	return st->read_ns;
}

double agg_trace_interval_s(const struct agg_trace *st)
{
	return (st->read_ns - st->prev_read_ns) / 1e9;
}

bool agg_trace_by_hwq(const struct agg_trace *st)
{
	return st->hwq;
}

int agg_trace_nslots(const struct agg_trace *st)
{
	return st->nslots;
}

const struct agg_dev *agg_trace_dev(const struct agg_trace *st, int i)
{
	return i >= 0 && i < st->nslots && st->cur[i].dev ? &st->cur[i] : NULL;
}

int agg_trace_nfailures(const struct agg_trace *st)
{
	return fail_set_count(st->fails);
}

const struct agg_failure *agg_trace_failure(const struct agg_trace *st, int i)
{
	return fail_set_get(st->fails, i);
}

int agg_trace_labels(const struct agg_trace *st, struct stat_label **out)
{
	return agg_labels_read(bpf_map__fd(st->skel->maps.label_counts),
			       st->slots, st->nslots, out);
}

void agg_trace_losses(const struct agg_trace *st,
		       struct iolens_stat_counters *lost)
{
	struct iolens_stat_counters *v = calloc(st->ncpu, sizeof(*v));
	__u32 zero = 0;

	memset(lost, 0, sizeof(*lost));
	if (!v)
		return;
	/* Every field is a __u64 count. */
	if (!bpf_map_lookup_elem(bpf_map__fd(st->skel->maps.stat_counters), &zero, v))
		for (int c = 0; c < st->ncpu; c++)
			for (size_t i = 0; i < sizeof(*v) / sizeof(__u64); i++)
				((__u64 *)lost)[i] += ((__u64 *)&v[c])[i];
	free(v);
}

struct agg_dev *agg_dev_new(const struct agg_trace *st)
{
	struct agg_dev *d = calloc(1, sizeof(*d));

	if (d && (agg_dev_init(st, d) ||
		  (st->hwq && !(d->hwq = calloc(IOLENS_HWQ_MAX, sizeof(*d->hwq)))))) {
		agg_dev_free(d);
		d = NULL;
	}
	return d;
}

int agg_trace_prog_fds(const struct agg_trace *st, int *fds, int max)
{
	struct bpf_program *p;
	int n = 0;

	bpf_object__for_each_program(p, st->skel->obj) {
		if (n < max && bpf_program__autoload(p) && bpf_program__fd(p) >= 0)
			fds[n++] = bpf_program__fd(p);
	}
	return n;
}

void agg_trace_stop(struct agg_trace *st)
{
	if (!st)
		return;
	while (st->nlinks)
		bpf_link__destroy(st->links[--st->nlinks]);
	if (st->slots)
		munmap((void *)st->slots, st->slots_len);
	if (st->ops)
		munmap((void *)st->ops, st->ops_len);
	if (st->hwq)
		munmap((void *)st->hwq, st->hwq_len);
	if (st->hists)
		munmap((void *)st->hists, st->hists_len);
	if (st->pend)
		munmap((void *)st->pend, st->pend_len);
	agg__destroy(st->skel);
	for (int s = 0; s < st->nslots; s++) {
		if (st->prev && st->prev[s].stat_open)
			close(st->prev[s].stat_fd);
		if (st->prev) {
			free(st->prev[s].raw);
			free(st->prev[s].hwq);
		}
		if (st->cur) {
			free(st->cur[s].hist_mem);
			free(st->cur[s].hwq);
		}
	}
	keyed_set_free(st->keyed);
	fail_set_free(st->fails);
	free(st->ds0);
	free(st->prev);
	free(st->cur);
	free(st->buf);
	free(st);
}

__u64 agg_trace_memory(const struct agg_trace_opts *o)
{
	struct agg_trace st = { .ncpu = libbpf_num_possible_cpus() };
	__u64 bytes = 0;

	st.skel = agg__open();
	if (st.skel && !configure(&st, o))
		bytes = mapmem_of_maps(st.skel->obj);
	agg__destroy(st.skel);
	return bytes;
}

const void *agg_trace_elf(size_t *sz)
{
	return agg__elf_bytes(sz);
}
