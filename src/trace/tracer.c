// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "bpf/common.h"
#include "lib/log.h"
#include "lib/priv.h"
#include "trace/tracer.h"

int tracer_may_start(const char *cmd, int ndev)
{
	if (ndev > IOLENS_MAX_DEV_FILTER) {
		usage_err(cmd, "at most %d devices", IOLENS_MAX_DEV_FILTER);
		return 1;
	}
	return priv_check_tracing(cmd);
}

bool tracer_record(void *rec, size_t len, const void *data, size_t size,
		   __u64 *short_records)
{
	if (size < len) {
		__atomic_fetch_add(short_records, 1, __ATOMIC_RELAXED);
		return false;
	}
	memcpy(rec, data, len);
	return true;
}

void tracer_load_failed(const char *cmd, const char *what, int err)
{
	struct rlimit as;

	/* The BTF is there (priv_check_tracing() saw it): libbpf could not
	 * read it, or anything else, for want of memory. */
	if ((err == -ENOMEM || err == -ESRCH) && !getrlimit(RLIMIT_AS, &as) &&
	    as.rlim_cur != RLIM_INFINITY) {
		fprintf(stderr, "iolens %s: cannot %s: out of memory: the address space is limited to %llu MiB (ulimit -v)\n",
			cmd, what, (unsigned long long)(as.rlim_cur >> 20));
		return;
	}
	fprintf(stderr, "iolens %s: cannot %s: %s (see 'iolens doctor'; -v shows libbpf's log)\n",
		cmd, what, strerror(-err));
}
