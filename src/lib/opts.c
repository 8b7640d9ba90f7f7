// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "lib/cgroups.h"
#include "lib/devices.h"
#include "bpf/stat.h"
#include "lib/log.h"
#include "lib/opts.h"

int opt_error(const char *cmd, int opt, char **argv)
{
	if (opt == ':')
		return usage_err(cmd, "option '%s' needs a value", argv[optind - 1]);
	if (optopt)
		return usage_err(cmd, "unknown option '-%c'", optopt);
	return usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
}

long long parse_duration_ns(const char *s, double unit_ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v = strtod(s, &end), ns = -1;

	if (end == s || !(v >= 0))
		return -1;
	if (!*end)
		ns = v * unit_ns;
	for (size_t i = 0; *end && i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit))
			ns = v * units[i].ns;
	}
	/* Also refuses "inf" and what a long long cannot hold. */
	if (!(ns >= 0 && ns < 9e18))
		return -1;
	return (long long)(ns + 0.5);
}

static int bad_interval(const char *cmd, const char *arg)
{
	return usage_err(cmd, "interval must be a positive number of seconds, not '%s'",
			 arg);
}

int opt_negative_interval(const char *cmd, int opt, int argc, char **argv)
{
	int i;

	if (opt != '?' || optopt < '0' || optopt > '9')
		return 0;
	i = optind < argc && argv[optind][0] == '-' &&
	    argv[optind][1] == optopt ? optind : optind - 1;
	return bad_interval(cmd, argv[i]);
}

int opt_interval_count(const char *cmd, int argc, char **argv,
		       unsigned long long *interval_ns, unsigned long *count)
{
	long long ns;
	char *end;

	if (optind < argc) {
		ns = parse_duration_ns(argv[optind], 1e9);
		if (ns <= 0)
			return bad_interval(cmd, argv[optind]);
		*interval_ns = ns;
		optind++;
	}
	if (optind < argc) {
		errno = 0;
		*count = strtoul(argv[optind], &end, 10);
		if (errno || end == argv[optind] || *end || !*count ||
		    argv[optind][0] == '-')
			return usage_err(cmd, "count must be a positive whole number, not '%s'",
					 argv[optind]);
		optind++;
	}
	if (optind < argc)
		return usage_err(cmd, "unexpected argument '%s'", argv[optind]);
	return 0;
}

int opt_disk(const char *cmd, const char *s, unsigned int *devs, int *ndev)
{
	struct dev_info info;
	__u32 dev;

	if (*ndev == IOLENS_MAX_DEV_FILTER)
		return usage_err(cmd, "at most %d devices", IOLENS_MAX_DEV_FILTER);
	if (dev_parse(s, &dev) || dev_lookup(dev, &info))
		return usage_err(cmd, "no block device '%s' here", s);
	if (info.disk != dev)
		return usage_err(cmd, "'%s' is a partition: give its disk, and -p for its partitions", s);
	devs[(*ndev)++] = dev;
	return 0;
}

int opt_proc(const char *cmd, int opt, const char *arg,
	     struct iolens_proc_filter *f)
{
	char *end;
	long pid;

	switch (opt) {
	case OPT_PROC_PID:
		pid = strtol(arg, &end, 10);
		if (*end || end == arg || pid <= 0 || pid > INT_MAX)
			return usage_err(cmd, "--pid takes a process id, not '%s'", arg);
		if (kill((pid_t)pid, 0) && errno == ESRCH)
			return usage_err(cmd, "no process %ld", pid);
		if (f->npid == IOLENS_MAX_PID_FILTER)
			return usage_err(cmd, "at most %d --pid", IOLENS_MAX_PID_FILTER);
		f->pid[f->npid++] = (__u32)pid;
		return 1;
	case OPT_PROC_COMM:
		if (!*arg || strlen(arg) >= IOLENS_COMM_LEN)
			return usage_err(cmd, "--comm takes a command name of 1 to %d characters, not '%s'",
					 IOLENS_COMM_LEN - 1, arg);
		strcpy(f->comm, arg);
		return 1;
	case OPT_PROC_CGROUP:
		if (cgroup_v2_id(arg, &f->cgroup_id, &f->cgroup_level))
			return usage_err(cmd, "no cgroup2 '%s' here (a path below the cgroup2 mount)", arg);
		if (!f->cgroup_level)
			f->cgroup_id = 0;	/* the root: everything */
		return 1;
	}
	return 0;
}

bool opt_proc_set(const struct iolens_proc_filter *f)
{
	return f->npid || f->comm[0] || f->cgroup_level;
}
