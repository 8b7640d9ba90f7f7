// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
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

/* Whether /proc/kallsyms names `sym`, a variable: only with
 * CONFIG_KALLSYMS_ALL.  x86-64's per-CPU ones, offsets from 0, come first
 * where they are; where none is, the whole file is read (56 ms). */
static bool kallsyms_names(const char *sym)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256], name[128], type;
	unsigned long long addr;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3)
			break;
		found = !strcmp(name, sym);
	}
	fclose(f);
	return found;
}

/* See struct kfacts' preempt_count. */
static void preempt_count_find(const struct btf *btf, struct kfacts *k)
{
	long base = kbtf_percpu_offset(btf, "this_cpu_off");
	long at = kbtf_percpu_offset(btf, "__preempt_count");
	long in_hot;

	if (!IS_X86_64 || base < 0)
		return;
	k->preempt_count = "__preempt_count";
	if (at < 0) {
		k->preempt_count = "pcpu_hot";
		at = kbtf_percpu_offset(btf, "pcpu_hot");
		in_hot = kbtf_member_offset(btf, "pcpu_hot", "preempt_count");
		if (at < 0 || in_hot < 0) {
			k->preempt_count = NULL;
			return;
		}
		at += in_hot;
	}
	if (!kallsyms_names("this_cpu_off")) {
		k->preempt_count = NULL;
		return;
	}
	k->preempt_count_delta = at - base;
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
		preempt_count_find(btf, &k);
		btf__free(btf);
	}
	if (k.rqf_source == KFACT_UNKNOWN)
		rqf_from_version(&k);
	if (release_of(&major, &minor))
		k.tp_misses_counted = major > 6 || (major == 6 && minor >= 7);
	return &k;
}
