/* SPDX-License-Identifier: GPL-2.0 */
/* The programs on a syscall's entry and exit tracepoints. */
#ifndef IOLENS_SYS_HOOK_BPF_H
#define IOLENS_SYS_HOOK_BPF_H

/*
 * enter_NAME and exit_NAME on syscalls/sys_enter_NAME and sys_exit_NAME:
 * `on_enter` and `on_exit` are their statements, with ctx in scope.
 * Classic tracepoints: libbpf reads their ids in tracefs.
 *
 * ctx is the record these events write, struct syscall_trace_enter and
 * _exit (kernel/trace/trace.h), read by CO-RE: not trace_event_raw_sys_enter,
 * the raw_syscalls events' record, whose `long id` lands args and ret 8
 * bytes later where struct trace_entry is 12 bytes long.  It is on Debian's
 * 6.1 PREEMPT_RT kernel (the RT patch's common_preempt_lazy_count): there
 * the raw layout read the fd from `buf`, and sys_exit's ret past the end of
 * the record, which the kernel refuses at attach (EACCES: the program's
 * max_ctx_offset exceeds the event's fields, perf_event_set_bpf_prog()).
 */
#define SYS_PROGS(name, on_enter, on_exit)				\
SEC("tracepoint/syscalls/sys_enter_" #name)				\
int enter_##name(struct syscall_trace_enter *ctx)			\
{									\
	on_enter;							\
	return 0;							\
}									\
SEC("tracepoint/syscalls/sys_exit_" #name)				\
int exit_##name(struct syscall_trace_exit *ctx)			\
{									\
	on_exit;							\
	return 0;							\
}

#endif
