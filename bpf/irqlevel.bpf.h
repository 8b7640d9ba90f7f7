/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The level of interrupt a program runs at on its CPU, from the kernel's
 * preempt count: 0 a task, 1 a softirq, 2 a hard interrupt, 3 an NMI.  Two
 * runs at one level on one CPU never overlap (hard interrupts do not nest
 * since Linux 2.6.35, softirqs never did), so a per-CPU slot per level
 * holds what the run at that level is doing, untouched by the runs that
 * interrupt it.
 *
 * x86-64 keeps the count in a per-CPU variable whose name changed
 * (__preempt_count; in struct pcpu_hot from Linux 6.2, "x86/percpu: Move
 * preempt_count next to current_task", to 6.14).  A typed ksym of either
 * would fail the whole object's load where it is absent and libbpf may
 * not search the modules' BTF (no CAP_SYS_ADMIN), so the programs take
 * this CPU's this_cpu_off, which every x86-64 kernel has, and read the
 * count at the distance the loader found in BTF (kfacts' preempt_count).
 * Elsewhere irq_level() says -1: unknown.
 */
#ifndef IOLENS_IRQLEVEL_BPF_H
#define IOLENS_IRQLEVEL_BPF_H

#define IRQ_LEVELS 4

/* From this CPU's this_cpu_off to its preempt count, in bytes. */
const volatile __s64 preempt_count_delta = 0;

#if defined(__TARGET_ARCH_x86)
extern const unsigned long this_cpu_off __ksym __weak;
#endif

/* include/linux/preempt.h's masks; NMI_MASK as wide as it has been (its
 * bits start at 20 in every kernel, one of them or four). */
#define KERNEL_SOFTIRQ_OFFSET	0x00000100
#define KERNEL_HARDIRQ_MASK	0x000f0000
#define KERNEL_NMI_MASK		0x00f00000

static __always_inline int irq_level(void)
{
	int pc = 0;

#if defined(__TARGET_ARCH_x86)
	const char *p;

	if (!&this_cpu_off)
		return -1;
	p = bpf_this_cpu_ptr(&this_cpu_off);
	if (bpf_probe_read_kernel(&pc, sizeof(pc), p + preempt_count_delta))
		return -1;
#else
	return -1;
#endif
	if (pc & KERNEL_NMI_MASK)
		return 3;
	if (pc & KERNEL_HARDIRQ_MASK)
		return 2;
	return pc & KERNEL_SOFTIRQ_OFFSET ? 1 : 0;
}

#endif
