// SPDX-License-Identifier: GPL-2.0
/*
 * Enough open files for a BPF object (trace/fdlimit.h).  Each map, program
 * and link is a file, and so are the object's BTF and, while it loads, the
 * BTF of every kernel module (libbpf looks for CO-RE candidates in them
 * and closes them at the end of the load).  Counted from the object as
 * configured, not guessed: a command that turns programs off needs fewer.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <bpf/libbpf.h>
#include "trace/fdlimit.h"

/* What the command opens itself besides the object: stdio, /proc and
 * /sys files it reads, a listening socket and libbpf's feature probes
 * (each closed at once). */
#define FDLIMIT_MARGIN		16

static long refused_need, refused_limit;

/* Entries of `dir` whose name is not `except` (nor . and ..); 0 if it
 * cannot be read. */
static int count_entries(const char *dir, const char *except)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    (!except || strcmp(e->d_name, except)))
			n++;
	closedir(d);
	return n;
}

int fdlimit_of(struct bpf_object *obj, int extra)
{
	struct bpf_program *p;
	const struct bpf_map *m;
	int maps = 0, progs = 0, modules;

	bpf_object__for_each_map(m, obj)
		maps += bpf_map__autocreate(m);
	bpf_object__for_each_program(p, obj)
		progs += bpf_program__autoload(p);
	/* Modules' BTF during the load, the programs' links after it. */
	modules = count_entries("/sys/kernel/btf", "vmlinux");
	return maps + progs + !!bpf_object__btf(obj) +
	       (modules > progs ? modules : progs) + extra;
}

int fdlimit_ensure(const char *cmd, struct bpf_object *obj, int extra)
{
	/* The directory's own fd is among those counted: it stands for
	 * the one the next open() takes. */
	long need = count_entries("/proc/self/fd", NULL) + fdlimit_of(obj, extra) +
		    FDLIMIT_MARGIN;
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur == RLIM_INFINITY ||
	    (long)r.rlim_cur >= need)
		return 0;
	/* As systemd and most daemons do: the hard limit is what the
	 * administrator allows, the soft one a default for old select()
	 * users, which iolens is not. */
	if (r.rlim_max == RLIM_INFINITY || (long)r.rlim_max > (long)r.rlim_cur) {
		struct rlimit raised = { r.rlim_max, r.rlim_max };

		if (!setrlimit(RLIMIT_NOFILE, &raised) &&
		    (r.rlim_max == RLIM_INFINITY || (long)r.rlim_max >= need))
			return 0;
		if (!getrlimit(RLIMIT_NOFILE, &raised))
			r = raised;
	}
	refused_need = need;
	refused_limit = (long)r.rlim_cur;
	if (cmd)
		fprintf(stderr, "iolens %s: needs %ld open files, the limit is %ld (ulimit -n): raise it\n",
			cmd, need, refused_limit);
	return -EMFILE;
}

bool fdlimit_refused(long *need, long *limit)
{
	bool was = refused_need;

	*need = refused_need;
	*limit = refused_limit;
	refused_need = 0;
	return was;
}
