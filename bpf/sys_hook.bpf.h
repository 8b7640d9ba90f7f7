/* SPDX-License-Identifier: GPL-2.0 */
/* The programs on a syscall's entry and exit tracepoints. */
#ifndef IOLENS_SYS_HOOK_BPF_H
#define IOLENS_SYS_HOOK_BPF_H

/*
 * enter_NAME and exit_NAME on syscalls/sys_enter_NAME and sys_exit_NAME:
 * `on_enter` and `on_exit` are their statements, with ctx in scope
 * (struct trace_event_raw_sys_enter, _sys_exit).  Classic tracepoints:
 * libbpf reads their ids in tracefs.
 */
#define SYS_PROGS(name, on_enter, on_exit)				\
SEC("tracepoint/syscalls/sys_enter_" #name)				\
int enter_##name(struct trace_event_raw_sys_enter *ctx)		\
{									\
	on_enter;							\
	return 0;							\
}									\
SEC("tracepoint/syscalls/sys_exit_" #name)				\
int exit_##name(struct trace_event_raw_sys_exit *ctx)			\
{									\
	on_exit;							\
	return 0;							\
}

#endif
