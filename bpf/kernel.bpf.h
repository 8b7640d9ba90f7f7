/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the loader tells the programs of the running kernel, where CO-RE
 * cannot (src/trace/kfacts.c): read-only, so that the verifier drops the
 * paths this kernel cannot take.
 */
#ifndef IOLENS_KERNEL_BPF_H
#define IOLENS_KERNEL_BPF_H

/* bpf_rdonly_cast(), Linux 6.2: see files.bpf.h. */
const volatile bool have_rdonly_cast = true;

/*
 * block_io_start and block_io_done, Linux 6.5 (5a80bd075f3b, "block:
 * introduce block_io_start/block_io_done tracepoints").  Before them the
 * programs on block_io_start run at a request's issue instead (its
 * submitter is then the issuing task: the same one unless the request was
 * issued from a kworker), and times end at block_rq_complete.
 */
const volatile bool have_io_start = true;

#endif
