/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF objects need to know of the running kernel before they load,
 * where CO-RE alone cannot tell: set into their read-only data, so that the
 * verifier drops the paths this kernel cannot take.
 */
#ifndef IOLENS_TRACE_KFACTS_H
#define IOLENS_TRACE_KFACTS_H

#include <stdbool.h>
#include <linux/types.h>

#if defined(__x86_64__)
#define IS_X86_64 1
#else
#define IS_X86_64 0
#endif

/* Where a fact came from, for doctor. */
enum kfact_source { KFACT_BTF, KFACT_VERSION, KFACT_UNKNOWN };

struct kfacts {
	/* rq->rq_flags bits of RQF_IO_STAT and RQF_FLUSH_SEQ; 0 unknown. */
	__u32 rqf_io_stat, rqf_flush_seq;
	enum kfact_source rqf_source;
	/* The bpf_rdonly_cast kfunc (Linux 6.2). */
	bool rdonly_cast;
	/* The block_io_start / block_io_done tracepoints (Linux 6.5). */
	bool io_start_done;
	/* The bit of QUEUE_FLAG_STATS in queue_flags (an anonymous enum's
	 * since Linux 6.1 renumbered them); -1 unknown. */
	int queue_flag_stats;
	/* trace_call_bpf() counts the runs of a program it skips in the
	 * program's recursion_misses ("bpf: Count missed stats in
	 * trace_call_bpf", Linux 6.7); by kernel version, as nothing in BTF
	 * shows it. */
	bool tp_misses_counted;
	/* Where the preempt count is, which tells a program's interrupt
	 * level (bpf/irqlevel.bpf.h): on x86-64, the per-CPU variable that
	 * holds it ("__preempt_count", or "pcpu_hot" from Linux 6.2 to 6.14),
	 * and its distance from this_cpu_off, read from BTF; NULL where BTF
	 * lacks either or /proc/kallsyms does not name this_cpu_off
	 * (CONFIG_KALLSYMS_ALL: the verifier finds its address there). */
	const char *preempt_count;
	long preempt_count_delta;
};

/* Read once from the kernel's BTF and release; later calls return the
 * same. */
const struct kfacts *kfacts_get(void);

#endif
