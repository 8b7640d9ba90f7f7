// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/clock.h"
#include "bpf/check.h"
#include "check.skel.h"	/* after its ABI header: its rodata holds our cfg */
#include "trace/check_trace.h"
#include "trace/fdlimit.h"
#include "trace/kfacts.h"
#include "trace/tracefs.h"
#include "trace/block_trace.h"
#include "lib/log.h"
#include "lib/stop.h"
#include "trace/mapmem.h"
#include "trace/tracer.h"

struct check_trace {
	struct check *skel;
	struct ring_buffer *rb;
	check_trace_fn fn;
	void *ctx;
	__u64 short_records;
	int ending;		/* check_trace_end(): drain, then return */
};

static int on_event(void *ctx, void *data, size_t size)
{
	struct check_trace *ct = ctx;
	struct iolens_check_event e;

	if (tracer_record(&e, sizeof(e), data, size, &ct->short_records))
		ct->fn(ct->ctx, &e);
	return 0;
}

struct check_trace *check_trace_start(const char *cmd, const __u32 *devs,
				      int ndev)
{
	struct check_trace *ct;
	int err;

	if (tracer_may_start(cmd, ndev))
		return NULL;
	ct = calloc(1, sizeof(*ct));
	if (!ct)
		return NULL;
	ct->skel = check__open();
	if (!ct->skel) {
		err = -errno;
		goto fail;
	}
	ct->skel->rodata->cfg.ndev = ndev;
	ct->skel->rodata->have_rdonly_cast = kfacts_get()->rdonly_cast;
	ct->skel->rodata->have_io_start = kfacts_get()->io_start_done;
	bpf_program__set_autoload(ct->skel->progs.check_start,
				  kfacts_get()->io_start_done);
	if (ndev)	/* devs may be NULL then */
		memcpy((void *)ct->skel->rodata->cfg.dev, devs, ndev * sizeof(*devs));
	/* Its syscall events are tracefs events: libbpf reads their ids
	 * there. */
	err = tracefs_ensure(NULL);
	if (err) {
		fprintf(stderr, "iolens %s: the write syscalls' events need tracefs, which is not mounted and could not be mounted at %s: %s\n",
			cmd, TRACEFS_DIR, strerror(-err));
		check_trace_stop(ct);
		return NULL;
	}
	/* With its ring buffer's epoll fd. */
	if (fdlimit_ensure(cmd, ct->skel->obj, 1)) {
		check_trace_stop(ct);
		return NULL;
	}
	err = check__load(ct->skel);
	if (err)
		goto fail;
	mapmem_say(cmd, "the write checks", ct->skel->obj, NULL, 0);
	err = check__attach(ct->skel);
	if (err)
		goto fail;
	ct->rb = ring_buffer__new(bpf_map__fd(ct->skel->maps.check_events),
				  on_event, ct, NULL);
	if (!ct->rb) {
		err = -errno;
		goto fail;
	}
	/* Attached: from here a Ctrl-C ends the trace cleanly, also one
	 * that comes as soon as the caller says it is tracing. */
	stop_catch();
	return ct;
fail:
	tracer_load_failed(cmd, "load or attach the check programs", err);
	check_trace_stop(ct);
	return NULL;
}

int check_trace_run(struct check_trace *ct, __u64 duration_ns,
		    check_trace_fn fn, void *ctx, __u64 *traced_ns)
{
	__u64 start = mono_ns();
	int n;

	ct->fn = fn;
	ct->ctx = ctx;
	while (!stop_requested() && !__atomic_load_n(&ct->ending, __ATOMIC_ACQUIRE)) {
		/* Records do not wake us (BPF_RB_NO_WAKEUP: a wakeup per
		 * write request would cost the workload more than this). */
		n = ring_buffer__consume(ct->rb);
		if (n < 0 && n != -EINTR) {
			pr_err("reading the ring buffer: %s", strerror(-n));
			return 1;
		}
		if (duration_ns && mono_ns() - start >= duration_ns)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	}
	/* Detach first so the drain sees everything that was recorded.  It
	 * waits for the faultable syscall tracepoints' grace period (6.13+),
	 * which is not tracing time. */
	*traced_ns = mono_ns() - start;
	check__detach(ct->skel);
	ring_buffer__consume(ct->rb);
	return 0;
}

void check_trace_end(struct check_trace *ct)
{
	__atomic_store_n(&ct->ending, 1, __ATOMIC_RELEASE);
}

__u64 check_trace_lost(const struct check_trace *ct)
{
	struct bpf_program *p;
	__u64 n = ct->short_records + ct->skel->bss->lost;

	/* A hook that fired while the same hook ran on that CPU. */
	bpf_object__for_each_program(p, ct->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

int check_trace_calls_fd(const struct check_trace *ct)
{
	return bpf_map__fd(ct->skel->maps.write_calls);
}

void check_trace_stop(struct check_trace *ct)
{
	if (!ct)
		return;
	ring_buffer__free(ct->rb);
	check__destroy(ct->skel);
	free(ct);
}

const void *check_trace_elf(size_t *sz)
{
	return check__elf_bytes(sz);
}

__u64 check_trace_memory(void)
{
	struct check *skel = check__open();
	__u64 bytes = skel ? mapmem_of_maps(skel->obj) : 0;

	check__destroy(skel);
	return bytes;
}
