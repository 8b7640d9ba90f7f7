// SPDX-License-Identifier: GPL-2.0
/*
 * The command line's value parsers: "KEY=VALUE" into a load job (every
 * fio option iolens takes, by name) and VALUE as a duration, size, count
 * and pid, as the commands parse their options.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "lib/parse.h"
#include "load/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct load_job_opts o;
	char *s = malloc(size + 1), *eq;
	const char *err, *val;
	unsigned long n;
	__u64 v;
	__u32 pid;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	eq = strchr(s, '=');
	val = eq ? eq + 1 : NULL;
	if (eq)
		*eq = '\0';
	load_opts_init(&o);
	if (load_opt_known(s))
		load_opt_set(&o, s, val, &err);
	if (val) {
		parse_duration(val, 1e9, &v);
		parse_size(val, &v);
		parse_count(val, &n);
		parse_pid(val, &pid);
	}
	free(s);
	return 0;
}
