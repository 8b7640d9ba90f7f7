// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "iolens.h"
#include "block.skel.h"	/* after iolens.h: its rodata holds our cfg */
#include "block_trace.h"
#include "log.h"
#include "priv.h"
#include "reqflags.h"
#include "rqfilter.h"
#include "devices.h"

struct block_trace {
	struct block *skel;
	struct ring_buffer *rb;
	__u64 short_records;
	const char *flavour;
	block_trace_fn fn;
	void *ctx;
	int stop;
};

static volatile sig_atomic_t signalled;

static void on_signal(int sig)
{
	(void)sig;
	signalled = 1;
}

__u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* block_io_start appeared in Linux 6.5 (commit 5a80bd075f3b); without it
 * the submitter is taken at insert or issue. */
static bool have_io_start(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool ok;

	if (!btf)
		return false;
	ok = btf__find_by_name_kind(btf, "btf_trace_block_io_start",
				    BTF_KIND_TYPEDEF) > 0;
	btf__free(btf);
	return ok;
}

static int load_flavour(struct block_trace *bt, bool btf, bool io_start,
			const __u32 *devs, int ndev)
{
	struct bpf_program *tp_btf[] = {
		bt->skel->progs.btf_io_start, bt->skel->progs.btf_insert,
		bt->skel->progs.btf_issue, bt->skel->progs.btf_requeue,
		bt->skel->progs.btf_merge, bt->skel->progs.btf_complete,
	};
	struct bpf_program *raw[] = {
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
	if (!err)
		err = block__attach(bt->skel);
	bt->flavour = btf ? "tp_btf" : "raw_tp";
	return err;
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
	if (priv_check_bpf(cmd))
		return NULL;
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "iolens %s: this kernel has no BTF (/sys/kernel/btf/vmlinux): it needs CONFIG_DEBUG_INFO_BTF=y\n", cmd);
		return NULL;
	}
	reqflags_init();
	io_start = have_io_start();
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
	return bt;
}

int block_trace_devs(const char *cmd, const struct rqfilter *f, __u32 *devs)
{
	char path[64];

	for (int i = 0; i < f->ndev; i++) {
		if (dev_parse(f->dev[i], &devs[i]))
			return usage_err(cmd, "no block device '%s' here", f->dev[i]);
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition",
			 kdev_major(devs[i]), kdev_minor(devs[i]));
		/* Requests belong to the whole disk; the block layer has
		 * remapped partition sectors before any of our hooks. */
		if (!access(path, F_OK))
			return usage_err(cmd, "'%s' is a partition: requests are traced per whole disk, give the disk instead", f->dev[i]);
	}
	return 0;
}

const char *block_trace_flavour(const struct block_trace *bt)
{
	return bt->flavour;
}

int block_trace_run(struct block_trace *bt, __u64 duration_ns,
		    block_trace_fn fn, block_trace_tick_fn tick, void *ctx)
{
	struct sigaction sa = { .sa_handler = on_signal };
	__u64 start = mono_ns(), next_tick = start + 1000000000ULL, now;
	int n;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	bt->fn = fn;
	bt->ctx = ctx;
	while (!signalled && !bt->stop) {
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
	block__detach(bt->skel);
	if (!bt->stop)
		ring_buffer__consume(bt->rb);
	return 0;
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
	if (ncpu <= 0)
		return;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return;
	if (!bpf_map_lookup_elem(bpf_map__fd(bt->skel->maps.counters), &zero, v)) {
		for (int i = 0; i < ncpu; i++) {
			st->lost += v[i].lost;
			st->untracked += v[i].untracked + v[i].evicted;
		}
	}
	free(v);
}

void block_trace_stop(struct block_trace *bt)
{
	if (!bt)
		return;
	ring_buffer__free(bt->rb);
	block__destroy(bt->skel);
	free(bt);
}
