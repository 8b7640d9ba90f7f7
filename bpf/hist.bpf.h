/* SPDX-License-Identifier: GPL-2.0 */
/* The histogram bucket of a value, as the programs index with it. */
#ifndef IOLENS_HIST_BPF_H
#define IOLENS_HIST_BPF_H

#include "hist_layout.h"

/*
 * hist_index(v) in a 64-bit register, checked against HIST_BUCKETS (always
 * below; the verifier wants the bound) in that same register.  LLVM copies
 * a 32-bit index with a 32-bit move, and Linux 6.1's verifier does not
 * carry the bound over such a copy ("R0 unbounded memory access"); a
 * 64-bit move it does.  HIST_BUCKETS: out of range, not to be used.
 */
static __always_inline __u64 hist_bucket(__u64 v)
{
	__u64 b = hist_index(v);

	asm volatile("" : "+r"(b));
	return b < HIST_BUCKETS ? b : HIST_BUCKETS;
}

#endif
