// SPDX-License-Identifier: GPL-2.0
/*
 * Privilege checks done before any libbpf call, so that an unprivileged user
 * gets one line saying what is missing instead of libbpf's EPERM noise.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "lib/priv.h"

bool priv_has_cap(int cap)
{
	/* Version 3 carries 64 capability bits as two 32-bit words; glibc has
	 * no capget() prototype (that is libcap's), hence the raw syscall. */
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (cap < 0 || cap >= 32 * _LINUX_CAPABILITY_U32S_3)
		return false;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}

bool priv_can_load_bpf(void)
{
	/*
	 * Since 5.8 loading a tracing program needs CAP_BPF and CAP_PERFMON
	 * (bpf_capable() and perfmon_capable()), and CAP_SYS_ADMIN still
	 * implies both.  Before 5.8 only CAP_SYS_ADMIN works: a kernel that
	 * does not know bits 38/39 never grants them, so root passes through
	 * the CAP_SYS_ADMIN test there.  The uid itself does not matter to the
	 * kernel, only the effective capabilities.
	 */
	return priv_has_cap(CAP_SYS_ADMIN) ||
	       (priv_has_cap(CAP_BPF) && priv_has_cap(CAP_PERFMON));
}

int priv_check_bpf(const char *cmd)
{
	bool bpf = priv_has_cap(CAP_BPF);
	bool perfmon = priv_has_cap(CAP_PERFMON);
	char missing[64] = "";

	if (priv_can_load_bpf())
		return 0;
	if (!bpf)
		strcat(missing, "CAP_BPF");
	if (!perfmon)
		strcat(missing, bpf ? "CAP_PERFMON" : ", CAP_PERFMON");
	fprintf(stderr,
		"iolens %s: needs root (or CAP_BPF and CAP_PERFMON) to load BPF programs; missing %s: %s\n",
		cmd, missing,
		geteuid() == 0 ?
		"this root has had them dropped (a container? grant CAP_BPF and CAP_PERFMON)" :
		"run it with sudo");
	return 1;
}

int priv_check_tracing(const char *cmd)
{
	if (priv_check_bpf(cmd))
		return 1;
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "iolens %s: this kernel has no BTF (/sys/kernel/btf/vmlinux): it needs CONFIG_DEBUG_INFO_BTF=y\n", cmd);
		return 1;
	}
	return 0;
}
