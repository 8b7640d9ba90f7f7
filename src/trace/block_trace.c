// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/clock.h"
#include "lib/ksyms.h"
#include "bpf/block.h"
#include "block.skel.h"	/* after its ABI header: its rodata holds our cfg */
#include "trace/block_trace.h"
#include "trace/fdlimit.h"
#include "trace/kfacts.h"
#include "lib/log.h"
#include "lib/stop.h"
#include "trace/reqflags.h"
#include "trace/rqfilter.h"
#include "lib/devices.h"
#include "trace/mapmem.h"
#include "trace/tracer.h"
#include "lib/tsmerge.h"

#define NPROGS 8

/* Records in all rings together: 16 MiB, 100k requests (0.2 s at 500k
 * requests/s); but at least 4 MiB a ring. */
#define RINGS_BYTES (16U << 20)
#define RING_MIN_BYTES (4U << 20)

/* A consumer that found this many records comes back in 2 ms, not 20. */
#define BUSY_RECORDS 256
/* Records a consumer formats before it hands them on. */
#define BATCH_RECORDS 8192

/*
 * Lines are given out once every consumer has read past their time by
 * this much: a record is stamped microseconds before it is in its ring (a
 * BPF program runs to its end on its CPU, interrupts aside).
 */
#define MERGE_SLACK_NS 10000000ULL

struct block_trace;

struct block_trace_out {
	struct tsmerge *merge;
	int idx;		/* the consumer's: its source in merge */
};

/* A thread draining one ring (block_trace_run_par()). */
struct consumer {
	struct block_trace *bt;
	struct block_trace_out out;
	struct ring_buffer *rb;
	void *ctx;
	int err;		/* read by the main thread: atomic */
	int batch;		/* records in this ring_buffer__consume() */
	__u64 batch_ts;		/* the time of the last, if it was cut */
	pthread_t thread;
};

struct block_trace {
	struct block *skel;
	struct bpf_link *links[NPROGS];
	int nlinks;
	struct bpf_program *progs[NPROGS];	/* loaded, in attach order */
	int nprogs;
	bool par;		/* block_trace_run_par(): a consumer per ring */
	int nrings;
	int ring_fd[IOLENS_RINGS_MAX];
	int nring_fds;
	__u32 ring_bytes;
	struct ring_buffer *rb;		/* block_trace_run(): one ring */
	struct consumer cons[IOLENS_RINGS_MAX];	/* block_trace_run_par() */
	struct tsmerge *merge;
	block_trace_format_fn format;
	int drain;		/* detached: consumers drain, then end */
	int done;		/* consumers ended */
	__u64 short_records;
	const char *flavour;
	__u64 unseen_at_end;	/* still in the table after detaching */
	const volatile struct iolens_rq_slot *rqs;	/* mmap of `rqs` */
	size_t rqs_len;
	block_trace_fn fn;
	void *ctx;
	int stop;
	int ending;		/* block_trace_end(): drain, then return */
};

/* Bytes of each of `n` rings: a power of two (the kernel's rule). */
static __u32 ring_bytes(int n)
{
	__u32 b = RINGS_BYTES;

	while (b > RING_MIN_BYTES && (__u64)b * n > RINGS_BYTES)
		b >>= 1;
	return b;
}

int block_trace_nconsumers(void)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	/* The CPUs we may run on (taskset, a cpuset), not the machine's. */
	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > IOLENS_RINGS_MAX ? IOLENS_RINGS_MAX : (int)n;
}

static int ring_make(__u32 bytes)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "iolens_ring", 0, 0, bytes, NULL);

	return fd < 0 ? -errno : fd;
}

/*
 * Before load: the rings, the first of them the template of `rings` (an
 * inner map must match it in size).  libbpf's own template cannot be
 * resized: bpf_map__set_max_entries() on it dereferences a NULL object in
 * libbpf 1.1 (Debian 12's).
 */
static int rings_make(struct block_trace *bt)
{
	for (int i = 0; i < bt->nrings; i++) {
		int fd = ring_make(bt->ring_bytes);

		if (fd < 0)
			return fd;
		bt->ring_fd[bt->nring_fds++] = fd;
	}
	bt->skel->rodata->cfg.nrings = bt->nrings;
	return bpf_map__set_inner_map_fd(bt->skel->maps.rings, bt->ring_fd[0]);
}

/* After load, before anything attaches: a record with no ring to go to is
 * counted lost. */
static int rings_put(struct block_trace *bt)
{
	int outer = bpf_map__fd(bt->skel->maps.rings);

	for (__u32 i = 0; i < (__u32)bt->nrings; i++)
		if (bpf_map_update_elem(outer, &i, &bt->ring_fd[i], BPF_ANY))
			return -errno;
	return 0;
}

static void rings_close(struct block_trace *bt)
{
	while (bt->nring_fds)
		close(bt->ring_fd[--bt->nring_fds]);
}

static __u64 rings_memory(const struct block_trace *bt)
{
	__u64 sum = 0;

	for (int i = 0; i < bt->nring_fds; i++)
		sum += mapmem_of_fd(bt->ring_fd[i]);
	return sum;
}

/* Files: the bi_end_io functions that tell direct I/O (bpf/rqfile.bpf.h);
 * 0, so direct I/O names no file, where /proc/kallsyms hides them. */
static void files_cfg(struct block *skel)
{
	skel->rodata->cfg.files = 1;
	skel->rodata->cfg.iomap_dio_end_io = ksyms_addr("iomap_dio_bio_end_io");
	skel->rodata->cfg.blkdev_dio_end_io[0] = ksyms_addr("blkdev_bio_end_io");
	skel->rodata->cfg.blkdev_dio_end_io[1] = ksyms_addr("blkdev_bio_end_io_async");
	skel->rodata->cfg.bio_chain_end_io = ksyms_addr("bio_chain_endio");
}

/* The maps only some uses fill take one entry unless `flags` ask for
 * them (before load), and what `flags` ask for is set. */
static int maps_size(struct block *skel, unsigned int flags)
{
	int err = 0;

	if (flags & BLOCK_TRACE_FILES)
		files_cfg(skel);
	else
		err = bpf_map__set_max_entries(skel->maps.rq_files, 1);

	if (!err && !(flags & BLOCK_TRACE_BIOS))
		err = bpf_map__set_max_entries(skel->maps.proc_bios, 1);
	if (!err && flags & BLOCK_TRACE_STACKS) {
		skel->rodata->cfg.stacks = 1;
		err = bpf_map__set_max_entries(skel->maps.stacks, IOLENS_STACKS_MAX);
	}
	return err;
}

static int load_flavour(const char *cmd, struct block_trace *bt, bool btf,
			bool io_start, const __u32 *devs, int ndev, unsigned int flags)
{
	/* In the order of a request's life; its bios last: attached first,
	 * they are counted for every request seen.  The rescue of skipped
	 * completions before the completion: attached after it, it runs
	 * after it (a tracepoint calls its probes in the order they came). */
	struct bpf_program *tp_btf[NPROGS] = {
		bt->skel->progs.btf_io_start, bt->skel->progs.btf_insert,
		bt->skel->progs.btf_issue, bt->skel->progs.btf_requeue,
		bt->skel->progs.btf_merge, bt->skel->progs.btf_complete_rescue,
		bt->skel->progs.btf_complete, bt->skel->progs.btf_bio_queue,
	};
	struct bpf_program *raw[NPROGS] = {
		bt->skel->progs.raw_io_start, bt->skel->progs.raw_insert,
		bt->skel->progs.raw_issue, bt->skel->progs.raw_requeue,
		bt->skel->progs.raw_merge, bt->skel->progs.raw_complete_rescue,
		bt->skel->progs.raw_complete, bt->skel->progs.raw_bio_queue,
	};
	bool bios = flags & BLOCK_TRACE_BIOS;
	int err;

	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		bpf_program__set_autoload(tp_btf[i], btf);
		bpf_program__set_autoload(raw[i], !btf);
	}
	if (!io_start) {
		bpf_program__set_autoload(tp_btf[0], false);
		bpf_program__set_autoload(raw[0], false);
	}
	if (!bios) {
		bpf_program__set_autoload(tp_btf[NPROGS - 1], false);
		bpf_program__set_autoload(raw[NPROGS - 1], false);
	}
	err = maps_size(bt->skel, flags);
	if (err)
		return err;
	bt->skel->rodata->cfg.ndev = ndev;
	for (int i = 0; i < ndev; i++)
		bt->skel->rodata->cfg.dev[i] = devs[i];
	/* Each ring is a map made here, and its consumer an epoll fd. */
	err = fdlimit_ensure(cmd, bt->skel->obj, 2 * bt->nrings);
	err = err ?: rings_make(bt);
	if (err)
		return err;
	err = block__load(bt->skel);
	if (err)
		return err;
	err = rings_put(bt);
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

/* A record of the rings into *rq: all of it with files, else the base,
 * the file's numbers 0.  false (counted) if it is shorter than either. */
static bool rq_of_record(struct block_trace *bt, struct iolens_rq *rq, const void *data,
			 size_t size)
{
	if (size < sizeof(struct iolens_rq_base)) {
		__atomic_fetch_add(&bt->short_records, 1, __ATOMIC_RELAXED);
		return false;
	}
	if (size > sizeof(*rq))
		size = sizeof(*rq);
	memcpy(rq, data, size);
	memset((char *)rq + size, 0, sizeof(*rq) - size);
	return true;
}

/* The request a slot of the table holds, as a record of no file. */
static void rq_of_slot(struct iolens_rq *rq, const struct iolens_rq_slot *slot)
{
	rq_of_record(NULL, rq, &slot->rq, sizeof(slot->rq));
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct block_trace *bt = ctx;
	struct iolens_rq rq;

	if (!rq_of_record(bt, &rq, data, size))
		return 0;
	reqflags_normalize(&rq);
	bt->stop = bt->fn(bt->ctx, &rq);
	return bt->stop;
}

char *block_trace_room(struct block_trace_out *o, size_t need)
{
	return tsmerge_room(o->merge, o->idx, need);
}

/* A request of consumer c's ring: formatted into its stream, an item at
 * the time it shows. */
static int format_one(struct consumer *c, const struct iolens_rq *rq)
{
	size_t n = c->bt->format(c->ctx, rq, &c->out);

	if (n == SIZE_MAX)
		return -ENOMEM;
	if (n)
		tsmerge_commit(c->out.merge, c->out.idx, block_rq_time(rq), n);
	return 0;
}

static int on_event_par(void *ctx, void *data, size_t size)
{
	struct consumer *c = ctx;
	struct iolens_rq rq;
	int err;

	if (!rq_of_record(c->bt, &rq, data, size))
		return 0;
	reqflags_normalize(&rq);
	err = format_one(c, &rq);
	if (err) {
		__atomic_store_n(&c->err, err, __ATOMIC_RELEASE);
		return err;
	}
	/* A ring never empty would never let ring_buffer__consume() return
	 * (libbpf 1.1 has no consume_n): stop the batch so that the lines
	 * made go out. */
	if (++c->batch < BATCH_RECORDS)
		return 0;
	c->batch_ts = block_rq_time(&rq);
	return -EAGAIN;
}

struct block_trace *block_trace_start(const char *cmd, const __u32 *devs,
				      int ndev, int nconsumers, unsigned int flags)
{
	struct block_trace *bt;
	const char *attach;
	bool io_start;
	int err = 0;

	if (tracer_may_start(cmd, ndev))
		return NULL;
	reqflags_init();
	io_start = kfacts_get()->io_start_done;
	bt = calloc(1, sizeof(*bt));
	if (!bt)
		return NULL;
	bt->par = nconsumers > 0;
	bt->nrings = nconsumers < 1 ? 1 : nconsumers > IOLENS_RINGS_MAX ? IOLENS_RINGS_MAX :
		     nconsumers;
	bt->ring_bytes = ring_bytes(bt->nrings);
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
		err = load_flavour(cmd, bt, btf, io_start, devs, ndev, flags);
		if (!err)
			break;
		detach(bt);
		rings_close(bt);
		bt->nprogs = 0;
		block__destroy(bt->skel);
		bt->skel = NULL;
		/* The other flavour needs as many files. */
		if (err == -EMFILE)
			break;
	}
	if (!bt->skel) {
		long need, limit;

		/* Unless fdlimit_ensure() said so already. */
		if (err != -EMFILE || !fdlimit_refused(&need, &limit))
			tracer_load_failed(cmd, "load the block tracer", err);
		block_trace_stop(bt);
		return NULL;
	}
	mapmem_say(cmd, "the block tracer", bt->skel->obj, "rings", rings_memory(bt));
	for (int i = 0; i < bt->nrings && bt->par; i++) {
		struct consumer *c = &bt->cons[i];

		c->bt = bt;
		c->out.idx = i;
		c->rb = ring_buffer__new(bt->ring_fd[i], on_event_par, c, NULL);
		if (!c->rb)
			break;
	}
	if (!bt->par)
		bt->rb = ring_buffer__new(bt->ring_fd[0], on_event, bt, NULL);
	if (!bt->par ? !bt->rb : !bt->cons[bt->nrings - 1].rb) {
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

__u64 block_trace_memory(int nrings, unsigned int flags)
{
	struct block *skel = block__open();
	int fd = ring_make(ring_bytes(nrings));
	__u64 bytes = 0;

	if (skel && fd >= 0 && !bpf_map__set_inner_map_fd(skel->maps.rings, fd) &&
	    !maps_size(skel, flags)) {
		bytes = mapmem_of_maps(skel->obj);
		bytes = bytes ? bytes + nrings * mapmem_of_fd(fd) : 0;
	}
	block__destroy(skel);
	if (fd >= 0)
		close(fd);
	return bytes;
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

int block_trace_stacks_fd(const struct block_trace *bt)
{
	return bpf_map__fd(bt->skel->maps.stacks);
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
static void report_table(struct block_trace *bt,
			 int (*fn)(struct block_trace *bt, const struct iolens_rq *rq))
{
	int fd = bpf_map__fd(bt->skel->maps.rqs);
	int ffd = bpf_map__fd(bt->skel->maps.rq_files);
	__u32 n = bpf_map__max_entries(bt->skel->maps.rqs);
	bool files = bpf_map__max_entries(bt->skel->maps.rq_files) == n;
	struct iolens_rq_slot slot;
	struct iolens_rq_file f;
	struct iolens_rq rq;

	for (__u32 k = 0; k < n && !bt->stop; k++) {
		if (bpf_map_lookup_elem(fd, &k, &slot) || !slot.key)
			continue;
		rq_of_slot(&rq, &slot);
		if (files && !bpf_map_lookup_elem(ffd, &k, &f)) {
			rq.fdev = f.fdev;
			rq.fgen = f.fgen;
			rq.ino = f.ino;
		}
		rq.ts_complete = 0;
		reqflags_normalize(&rq);
		bt->unseen_at_end++;
		bt->stop = fn(bt, &rq);
	}
}

static int to_callback(struct block_trace *bt, const struct iolens_rq *rq)
{
	return bt->fn(bt->ctx, rq);
}

/* After the consumers ended: the first one's stream is free. */
static int to_first_consumer(struct block_trace *bt, const struct iolens_rq *rq)
{
	return format_one(&bt->cons[0], rq);
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
		report_table(bt, to_callback);
	return 0;
}

static void *consume(void *arg)
{
	struct consumer *c = arg;
	struct block_trace *bt = c->bt;
	int n;

	while (!__atomic_load_n(&bt->stop, __ATOMIC_ACQUIRE)) {
		bool last = __atomic_load_n(&bt->drain, __ATOMIC_ACQUIRE);
		__u64 t = mono_ns();

		c->batch = 0;
		n = ring_buffer__consume(c->rb);
		if (n < 0 && n != -EINTR && n != -EAGAIN) {
			__atomic_store_n(&c->err, n, __ATOMIC_RELEASE);
			break;
		}
		/* Everything stamped before t is read (less the slack), unless
		 * the batch was cut: then only what came before it. */
		if (tsmerge_publish(bt->merge, c->out.idx, n == -EAGAIN ? c->batch_ts : t))
			break;
		if (n == -EAGAIN)
			continue;
		if (last)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = n >= BUSY_RECORDS ? 2000000 : 20000000 },
			  NULL);
	}
	if (tsmerge_publish(bt->merge, c->out.idx, UINT64_MAX) && !c->err)
		__atomic_store_n(&c->err, -ENOMEM, __ATOMIC_RELEASE);
	__atomic_fetch_add(&bt->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int block_trace_run_par(struct block_trace *bt, __u64 duration_ns,
			block_trace_format_fn format, void *const *cctx,
			block_trace_emit_fn emit, block_trace_tick_fn tick, void *ctx)
{
	__u64 start = mono_ns(), next_tick = start + 1000000000ULL, now;
	struct timespec nap = { .tv_nsec = 20000000 };
	int err = 0, rc = 0, started = 0;
	bool made = true;	/* every thread started: an error is theirs */

	if (!bt->par) {
		pr_err("block_trace_run_par() needs consumers at the start");
		return 1;
	}
	bt->format = format;
	bt->merge = tsmerge_new(bt->nrings);
	if (!bt->merge)
		err = -ENOMEM;
	for (int i = 0; i < bt->nrings && !err; i++) {
		int e;

		bt->cons[i].ctx = cctx[i];
		bt->cons[i].out.merge = bt->merge;
		e = pthread_create(&bt->cons[i].thread, NULL, consume, &bt->cons[i]);
		if (!e) {
			started++;
			continue;
		}
		/* EAGAIN here is memory for the thread's stack, or a limit. */
		pr_err("cannot start a thread to read the ring buffers: %s (out of memory, or a limit: ulimit -v, -u)",
		       strerror(e));
		err = -e;
		made = false;
	}
	while (!err && !rc && !stop_requested() &&
	       !__atomic_load_n(&bt->ending, __ATOMIC_ACQUIRE)) {
		nanosleep(&nap, NULL);
		rc = tsmerge_emit(bt->merge, MERGE_SLACK_NS, emit, ctx);
		now = mono_ns();
		if (tick && now >= next_tick) {
			tick(ctx);
			next_tick = now + 1000000000ULL;
		}
		for (int i = 0; i < started; i++)
			err = err ?: __atomic_load_n(&bt->cons[i].err, __ATOMIC_ACQUIRE);
		if (duration_ns && now - start >= duration_ns)
			break;
	}
	/* Detach first so the drain sees everything that was recorded;
	 * keep giving out lines meanwhile so that no consumer waits. */
	detach(bt);
	if (rc || err)
		__atomic_store_n(&bt->stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&bt->drain, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&bt->done, __ATOMIC_ACQUIRE) < started) {
		if (!rc)
			rc = tsmerge_emit(bt->merge, MERGE_SLACK_NS, emit, ctx);
		nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
	}
	for (int i = 0; i < started; i++) {
		pthread_join(bt->cons[i].thread, NULL);
		err = err ?: bt->cons[i].err;
	}
	if (!rc && !err) {
		report_table(bt, to_first_consumer);
		err = tsmerge_publish(bt->merge, 0, UINT64_MAX);
		if (!err)
			tsmerge_emit(bt->merge, 0, emit, ctx);
	}
	if (err && err != -EINTR) {
		if (made)
			pr_err("reading the ring buffers: %s", strerror(-err));
		return 1;
	}
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
	 * completion) is skipped and only counted in the program's info.
	 * The completions complete_rescue took are not missed; its own skips
	 * are (nested in its own run) the first program's to take. */
	for (int i = 0; i < bt->nprogs; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bt->progs[i] != bt->skel->progs.btf_complete_rescue &&
		    bt->progs[i] != bt->skel->progs.raw_complete_rescue &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(bt->progs[i]), &info, &len))
			st->missed += info.recursion_misses;
	}
	if (!bpf_map_lookup_elem(bpf_map__fd(bt->skel->maps.counters), &zero, v)) {
		for (int i = 0; i < ncpu; i++) {
			st->lost += v[i].lost;
			st->untracked += v[i].untracked;
			st->unseen += v[i].unseen;
			st->bios_untracked += v[i].bios_untracked;
			st->rescued += v[i].rescued;
		}
	}
	free(v);
	st->missed = st->missed > st->rescued ? st->missed - st->rescued : 0;
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
	if (bt->rqs)
		munmap((void *)bt->rqs, bt->rqs_len);
	ring_buffer__free(bt->rb);
	for (int i = 0; i < bt->nrings; i++)
		ring_buffer__free(bt->cons[i].rb);
	tsmerge_free(bt->merge);
	rings_close(bt);
	block__destroy(bt->skel);
	free(bt);
}

int block_trace_proc_bios(struct block_trace *bt,
			  void (*fn)(void *ctx, __u32 tgid,
				     const struct iolens_proc_bios *b),
			  void *ctx)
{
	int fd = bpf_map__fd(bt->skel->maps.proc_bios);
	struct iolens_proc_bios b;
	__u32 key, *prev = NULL;

	/* Entries are only added: the walk cannot restart from a key that
	 * went away. */
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		if (!bpf_map_lookup_elem(fd, &key, &b))
			fn(ctx, key, &b);
		prev = &key;
	}
	return errno == ENOENT ? 0 : -errno;
}

int block_trace_inflight(struct block_trace *bt, __u64 older_ns,
			 block_trace_inflight_fn fn, void *ctx)
{
	__u32 n = bpf_map__max_entries(bt->skel->maps.rqs);
	struct iolens_rq_slot slot;
	struct iolens_rq rq;
	__u64 now = mono_ns(), from;
	int err = 0;

	if (!bt->rqs)
		bt->rqs = mapmem_mmap(bt->skel->maps.rqs, PROT_READ, &bt->rqs_len, &err);
	if (err)
		return err;
	for (__u32 k = 0; k < n; k++) {
		__u64 key = bt->rqs[k].key;

		if (!key)
			continue;
		/* Trusted only if the slot held the same request throughout. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		memcpy(&slot, (const void *)&bt->rqs[k], sizeof(slot));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (bt->rqs[k].key != key || slot.key != key || slot.rq.ts_complete)
			continue;
		from = slot.rq.ts_start ? slot.rq.ts_start : slot.seen;
		if (!from || from > now || now - from < older_ns)
			continue;
		rq_of_slot(&rq, &slot);
		reqflags_normalize(&rq);
		fn(ctx, key, &rq, now - from);
	}
	return 0;
}

const void *block_trace_elf(size_t *sz)
{
	return block__elf_bytes(sz);
}
