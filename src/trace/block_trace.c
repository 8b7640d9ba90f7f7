// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/clock.h"
#include "bpf/block.h"
#include "block.skel.h"	/* after its ABI header: its rodata holds our cfg */
#include "trace/block_trace.h"
#include "trace/kfacts.h"
#include "lib/log.h"
#include "lib/stop.h"
#include "lib/priv.h"
#include "trace/reqflags.h"
#include "trace/rqfilter.h"
#include "lib/devices.h"

#define NPROGS 6

struct block_trace {
	struct block *skel;
	struct bpf_link *links[NPROGS];
	int nlinks;
	struct bpf_program *progs[NPROGS];	/* loaded, in attach order */
	int nprogs;
	struct ring_buffer *rb;
	__u64 short_records;
	const char *flavour;
	__u64 unseen_at_end;	/* still in the table after detaching */
	block_trace_fn fn;
	void *ctx;
	int stop;
	int ending;		/* block_trace_end(): drain, then return */
};

static int load_flavour(struct block_trace *bt, bool btf, bool io_start,
			const __u32 *devs, int ndev)
{
	/* In the order of a request's life. */
	struct bpf_program *tp_btf[NPROGS] = {
		bt->skel->progs.btf_io_start, bt->skel->progs.btf_insert,
		bt->skel->progs.btf_issue, bt->skel->progs.btf_requeue,
		bt->skel->progs.btf_merge, bt->skel->progs.btf_complete,
	};
	struct bpf_program *raw[NPROGS] = {
		bt->skel->progs.raw_io_start, bt->skel->progs.raw_insert,
		bt->skel->progs.raw_issue, bt->skel->progs.raw_requeue,
		bt->skel->progs.raw_merge, bt->skel->progs.raw_complete,
	};
	int err;

	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		bpf_program__set_autoload(tp_btf[i], btf);
		bpf_program__set_autoload(raw[i], !btf);
	}
	if (!io_start) {
		bpf_program__set_autoload(tp_btf[0], false);
		bpf_program__set_autoload(raw[0], false);
	}
	bt->skel->rodata->cfg.ndev = ndev;
	for (int i = 0; i < ndev; i++)
		bt->skel->rodata->cfg.dev[i] = devs[i];
	err = block__load(bt->skel);
	if (err)
		return err;
	/* Attach from the end of a request's life to its start: a request
	 * whose issue is seen must have its completion seen too, or it would
	 * stay counted in flight (and hold a table slot) for good.  The
	 * skeleton would attach in declaration order, start first. */
	for (int i = sizeof(raw) / sizeof(raw[0]) - 1; i >= 0; i--) {
		struct bpf_program *p = btf ? tp_btf[i] : raw[i];
		struct bpf_link *l;

		if (!bpf_program__autoload(p))
			continue;
		l = bpf_program__attach(p);
		if (!l)
			return -errno;
		bt->links[bt->nlinks++] = l;
		bt->progs[bt->nprogs++] = p;
	}
	bt->flavour = btf ? "tp_btf" : "raw_tp";
	return 0;
}

static void detach(struct block_trace *bt)
{
	while (bt->nlinks)
		bpf_link__destroy(bt->links[--bt->nlinks]);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct block_trace *bt = ctx;
	struct iolens_rq rq;

	if (size < sizeof(rq)) {
		bt->short_records++;
		return 0;
	}
	memcpy(&rq, data, sizeof(rq));
	reqflags_normalize(&rq);
	bt->stop = bt->fn(bt->ctx, &rq);
	return bt->stop;
}

struct block_trace *block_trace_start(const char *cmd, const __u32 *devs,
				      int ndev)
{
	struct block_trace *bt;
	const char *attach;
	bool io_start;
	int err = 0;

	if (ndev > IOLENS_MAX_DEV_FILTER) {
		usage_err(cmd, "at most %d devices", IOLENS_MAX_DEV_FILTER);
		return NULL;
	}
	if (priv_check_tracing(cmd))
		return NULL;
	reqflags_init();
	io_start = kfacts_get()->io_start_done;
	bt = calloc(1, sizeof(*bt));
	if (!bt)
		return NULL;
	/* IOLENS_ATTACH=raw_tp forces the fallback (tests, or a kernel whose
	 * tp_btf misbehaves); tp_btf alone refuses to fall back. */
	attach = getenv("IOLENS_ATTACH");
	if (attach && strcmp(attach, "tp_btf") && strcmp(attach, "raw_tp")) {
		fprintf(stderr, "iolens %s: IOLENS_ATTACH must be tp_btf or raw_tp, not '%s'\n",
			cmd, attach);
		block_trace_stop(bt);
		return NULL;
	}
	for (int btf = 1; btf >= 0; btf--) {
		if (attach && strcmp(attach, btf ? "tp_btf" : "raw_tp"))
			continue;
		bt->skel = block__open();
		if (!bt->skel) {
			err = -errno;
			break;
		}
		err = load_flavour(bt, btf, io_start, devs, ndev);
		if (!err)
			break;
		detach(bt);
		bt->nprogs = 0;
		block__destroy(bt->skel);
		bt->skel = NULL;
	}
	if (!bt->skel) {
		fprintf(stderr, "iolens %s: cannot load the block tracer: %s (see 'iolens doctor'; -v shows libbpf's log)\n",
			cmd, strerror(-err));
		block_trace_stop(bt);
		return NULL;
	}
	bt->rb = ring_buffer__new(bpf_map__fd(bt->skel->maps.events), on_event,
				  bt, NULL);
	if (!bt->rb) {
		fprintf(stderr, "iolens %s: cannot open the ring buffer: %s\n",
			cmd, strerror(errno));
		block_trace_stop(bt);
		return NULL;
	}
	/* Attached: from here a Ctrl-C ends the trace cleanly, also one
	 * that comes as soon as the caller says it is tracing. */
	stop_catch();
	return bt;
}

int block_trace_devs(const char *cmd, const struct rqfilter *f, __u32 *devs)
{
	struct dev_info info;

	for (int i = 0; i < f->ndev; i++) {
		if (dev_parse(f->dev[i], &devs[i]))
			return usage_err(cmd, "no block device '%s' here", f->dev[i]);
		/* Said, not refused: the disks under it may be asked for too. */
		if (!dev_lookup(devs[i], &info) && info.bio_based)
			fprintf(stderr, "iolens %s: %s is bio-based (zram, dm, md, NVMe multipath): its I/O never becomes a request, and no request of it will show; 'iolens stat -d %s' and 'iolens lat -d %s' time its bios\n",
				cmd, info.name, info.name, info.name);
	}
	return 0;
}

const char *block_trace_flavour(const struct block_trace *bt)
{
	return bt->flavour;
}

/*
 * Requests still in the table after detaching were seen starting and never
 * seen completing: in flight when tracing stopped, or their completion was
 * not delivered.  Report them with the completion unknown, so that every
 * request seen is reported once.
 */
static void report_table(struct block_trace *bt)
{
	int fd = bpf_map__fd(bt->skel->maps.rqs);
	__u32 n = bpf_map__max_entries(bt->skel->maps.rqs);
	struct iolens_rq_slot slot;

	for (__u32 k = 0; k < n && !bt->stop; k++) {
		if (bpf_map_lookup_elem(fd, &k, &slot) || !slot.key)
			continue;
		slot.rq.ts_complete = 0;
		reqflags_normalize(&slot.rq);
		bt->unseen_at_end++;
		bt->stop = bt->fn(bt->ctx, &slot.rq);
	}
}

int block_trace_run(struct block_trace *bt, __u64 duration_ns,
		    block_trace_fn fn, block_trace_tick_fn tick, void *ctx)
{
	__u64 start = mono_ns(), next_tick = start + 1000000000ULL, now;
	int n;

	bt->fn = fn;
	bt->ctx = ctx;
	while (!stop_requested() && !bt->stop &&
	       !__atomic_load_n(&bt->ending, __ATOMIC_ACQUIRE)) {
		/* The kernel side never wakes us (see block_hooks.bpf.h), so
		 * drain on a timer: 20 ms of records at a million requests/s
		 * is a tenth of the ring. */
		n = ring_buffer__consume(bt->rb);
		if (n < 0 && n != -EINTR) {
			pr_err("reading the ring buffer: %s", strerror(-n));
			return 1;
		}
		now = mono_ns();
		if (tick && now >= next_tick) {
			tick(ctx);
			next_tick = now + 1000000000ULL;
		}
		if (duration_ns && now - start >= duration_ns)
			break;
		if (!bt->stop)
			nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	}
	/* Detach first so the drain sees everything that was recorded. */
	detach(bt);
	if (!bt->stop)
		ring_buffer__consume(bt->rb);
	if (!bt->stop)
		report_table(bt);
	return 0;
}

void block_trace_end(struct block_trace *bt)
{
	__atomic_store_n(&bt->ending, 1, __ATOMIC_RELEASE);
}

void block_trace_stats(struct block_trace *bt, struct block_trace_stats *st)
{
	int ncpu = libbpf_num_possible_cpus();
	struct iolens_counters *v;
	__u32 zero = 0;

	memset(st, 0, sizeof(*st));
	/* A record too short to use is as good as lost (it cannot happen
	 * unless the BPF object and this binary disagree on the ABI). */
	st->lost = bt->short_records;
	st->unseen = bt->unseen_at_end;
	if (ncpu <= 0)
		return;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return;
	/* Events the kernel never ran us for: a hook that fires while the
	 * same hook runs on this CPU (a completion interrupt during a
	 * completion) is skipped and only counted in the program's info. */
	for (int i = 0; i < bt->nprogs; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(bpf_program__fd(bt->progs[i]), &info, &len))
			st->missed += info.recursion_misses;
	}
	if (!bpf_map_lookup_elem(bpf_map__fd(bt->skel->maps.counters), &zero, v)) {
		for (int i = 0; i < ncpu; i++) {
			st->lost += v[i].lost;
			st->untracked += v[i].untracked;
			st->unseen += v[i].unseen;
		}
	}
	free(v);
}

void block_trace_print_stats(FILE *f, const struct block_trace_stats *st)
{
	fprintf(f, "%llu lost (ring buffer full), %llu missed (hook nested in itself), %llu untracked (request table full), %llu without completion (in flight at the end, or not delivered)\n",
		(unsigned long long)st->lost, (unsigned long long)st->missed,
		(unsigned long long)st->untracked,
		(unsigned long long)st->unseen);
}

void block_trace_stop(struct block_trace *bt)
{
	if (!bt)
		return;
	detach(bt);
	ring_buffer__free(bt->rb);
	block__destroy(bt->skel);
	free(bt);
}

const void *block_trace_elf(size_t *sz)
{
	return block__elf_bytes(sz);
}
