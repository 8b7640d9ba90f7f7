// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include "lib/kbtf.h"
#include "trace/kfacts.h"

/*
 * rq_flags bits where they are macros, so not in BTF: the kernels whose
 * include/linux/blk-mq.h was read.  From 6.11 on they are an enum's, read
 * from BTF.
 */
static const struct {
	int major, minor_from, minor_to;
	int io_stat, flush_seq;		/* bit numbers */
} rqf_macros[] = {
	{ 6, 1, 2, 13, 4 },		/* v6.1, v6.2: RQF_IO_STAT (1 << 13) */
};

static bool release_of(int *major, int *minor)
{
	struct utsname u;

	return !uname(&u) && sscanf(u.release, "%d.%d", major, minor) == 2;
}

static void rqf_from_version(struct kfacts *k)
{
	int major, minor;

	if (!release_of(&major, &minor))
		return;
	for (size_t i = 0; i < sizeof(rqf_macros) / sizeof(rqf_macros[0]); i++) {
		if (major == rqf_macros[i].major && minor >= rqf_macros[i].minor_from &&
		    minor <= rqf_macros[i].minor_to) {
			k->rqf_io_stat = 1U << rqf_macros[i].io_stat;
			k->rqf_flush_seq = 1U << rqf_macros[i].flush_seq;
			k->rqf_source = KFACT_VERSION;
		}
	}
}

const struct kfacts *kfacts_get(void)
{
	static struct kfacts k;
	static bool done;
	int io, fs, major, minor;
	struct btf *btf;

	if (done)
		return &k;
	done = true;
	k.rqf_source = KFACT_UNKNOWN;
	k.queue_flag_stats = -1;
	btf = btf__load_vmlinux_btf();
	if (btf) {
		k.queue_flag_stats = kbtf_enum_value(btf, NULL, "QUEUE_FLAG_STATS");
		io = kbtf_enum_value(btf, NULL, "__RQF_IO_STAT");
		fs = kbtf_enum_value(btf, NULL, "__RQF_FLUSH_SEQ");
		if (io >= 0 && fs >= 0) {
			k.rqf_io_stat = 1U << io;
			k.rqf_flush_seq = 1U << fs;
			k.rqf_source = KFACT_BTF;
		}
		k.rdonly_cast = btf__find_by_name_kind(btf, "bpf_rdonly_cast",
						       BTF_KIND_FUNC) > 0;
		/* tp_btf programs attach by this typedef of the tracepoint. */
		k.io_start_done = btf__find_by_name_kind(btf, "btf_trace_block_io_start",
							 BTF_KIND_TYPEDEF) > 0;
		btf__free(btf);
	}
	if (k.rqf_source == KFACT_UNKNOWN)
		rqf_from_version(&k);
	if (release_of(&major, &minor))
		k.tp_misses_counted = major > 6 || (major == 6 && minor >= 7);
	return &k;
}
