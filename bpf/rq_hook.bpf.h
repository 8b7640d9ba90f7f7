/* SPDX-License-Identifier: GPL-2.0 */
/* A program on a block tracepoint whose one argument is the request. */
#ifndef IOLENS_RQ_HOOK_BPF_H
#define IOLENS_RQ_HOOK_BPF_H

/*
 * Program `name`, in section `sec` ("tp_btf/block_io_start"), that hands
 * the request to `fn`, a void function of it.  BPF_PROG pastes its name
 * argument, so a name another macro builds (block_hooks.bpf.h's FN())
 * must expand first: it does here, as an argument of RQ_PROG.
 */
#define RQ_PROG(sec, name, fn)						\
	SEC(sec)							\
	int BPF_PROG(name, struct request *rq)				\
	{								\
		fn(rq);							\
		return 0;						\
	}

#endif
