// SPDX-License-Identifier: GPL-2.0
#include <string.h>
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
