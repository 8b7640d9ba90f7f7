// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include "lib/log.h"

int log_verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (!log_verbose || (level == LIBBPF_DEBUG && log_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void log_setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	fputs("iolens: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "iolens %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'iolens %s --help')\n", cmd);
	return 2;
}
