// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel text addresses to names, from /proc/kallsyms: its text symbols
 * (types t, T, w, W) read once, sorted by address, searched for the last
 * one at or below an address.  Module symbols say their module, as perf
 * shows them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/ksyms.h"
#include "lib/log.h"
#include "lib/vec.h"

struct ksym {
	__u64 addr;
	char *name;		/* "name", or "name\0module" */
};

static struct ksym *syms;
static size_t nsyms, cap;
static int loaded;		/* 0 not tried, else ksyms_load()'s answer + 1 */

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int load(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], mod[128], type;
	unsigned long long addr;
	bool shown = false;
	int n, err = 0;

	if (!f)
		return -ENOENT;
	while (!err && fgets(line, sizeof(line), f)) {
		*mod = 0;
		n = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod);
		if (n < 3 || !strchr("tTwW", type))
			continue;
		/* Hidden addresses all read 0. */
		shown |= addr != 0;
		if (vec_grow(&syms, &cap, nsyms + 1, sizeof(*syms), 4096)) {
			err = -ENOMEM;
			break;
		}
		n = snprintf(line, sizeof(line), "%s%c%s", name, 0, mod);
		syms[nsyms].addr = addr;
		syms[nsyms].name = malloc(n + 1);
		if (syms[nsyms].name)
			memcpy(syms[nsyms].name, line, n + 1);
		if (!syms[nsyms++].name)
			err = -ENOMEM;
	}
	fclose(f);
	if (!err && !shown)
		err = -EPERM;
	if (err) {
		while (nsyms)
			free(syms[--nsyms].name);
		return err;
	}
	qsort(syms, nsyms, sizeof(*syms), ksym_cmp);
	return 0;
}

int ksyms_load(void)
{
	if (!loaded)
		loaded = load() + 1;
	return loaded - 1;
}

const char *kstack_unknown(__u32 stack)
{
	if (!stack)
		return "not seen submitting";
	return stack == IOLENS_STACK_LOST ? "not kept" : NULL;
}

void ksyms_load_for(const char *cmd, const char *lost)
{
	int err = ksyms_load();

	if (err == -EPERM)
		pr_err("%s: /proc/kallsyms hides the kernel's addresses "
		       "(kernel.kptr_restrict is 2): %s", cmd, lost);
	else if (err)
		pr_err("%s: cannot read /proc/kallsyms (%s): %s", cmd, strerror(-err), lost);
}

int ksyms_stack_first(const __u64 *frames, int n)
{
	char sym[512];
	int first = 0;

	for (int i = 0; i < n && frames[i]; i++) {
		ksyms_name(frames[i], sym, sizeof(sym));
		if (!strncmp(sym, "bpf_trace_run", 13) || !strncmp(sym, "__bpf_trace_", 12) ||
		    !strncmp(sym, "__traceiter_", 12))
			first = i + 1;
	}
	return first;
}

__u64 ksyms_addr(const char *name)
{
	/* Sorted by address: a walk, done once per name at start. */
	for (size_t i = 0; i < nsyms; i++)
		if (!strcmp(syms[i].name, name))
			return syms[i].addr;
	return 0;
}

const char *ksyms_name(__u64 addr, char *buf, size_t len)
{
	size_t lo = 0, hi = nsyms;
	const char *mod;

	/* The last symbol at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		snprintf(buf, len, "0x%" PRIx64, (uint64_t)addr);
	else {
		mod = syms[lo - 1].name + strlen(syms[lo - 1].name) + 1;
		snprintf(buf, len, "%s+0x%" PRIx64 "%s%s%s", syms[lo - 1].name,
			 (uint64_t)(addr - syms[lo - 1].addr),
			 *mod ? " [" : "", mod, *mod ? "]" : "");
	}
	return buf;
}
