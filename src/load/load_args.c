// SPDX-License-Identifier: GPL-2.0
/*
 * The jobs of an `iolens load` (or `iolens bench`) command line: each
 * --name starts a job; options before the first are global and every job
 * starts from them, as on fio's command line.  Job files (load_jobfile.c)
 * come after the command line's jobs, as in fio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "load/engine.h"
#include "load/load.h"
#include "lib/log.h"
#include "load/opts.h"

#define CMD LOAD_CMD

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iolens load [--name=NAME] --filename=PATH [OPTIONS]...\n"
		"       iolens load [OPTIONS]... JOBFILE...\n"
		"\n"
		"Synthetic block I/O with fio's options and output: a run of fio's jobs\n"
		"from the command line gives the same I/O and fio-shaped results.\n"
		"Writes go only to regular files (created if absent, never truncated) or\n"
		"to block devices that are not mounted, have no holders and carry no\n"
		"filesystem or partition table.  Ctrl-C stops and reports so far.\n"
		"\n"
		"options (each --name starts a job; options before it are global):\n");
	load_opts_help(f);
	fprintf(f, "  %-26s %s\n", "-h, --help", "this help");
	fprintf(f, "\nengines (--ioengine):\n");
	load_engines_help(f);
	fprintf(f,
		"\n"
		"sizes take k, m, g, t (1024-based; KiB and KB alike); times take\n"
		"us, ms, s, m, h (default seconds).\n"
		"\n"
		"job files are fio's: a [global] section and one section per job (its\n"
		"name); key=value or a bare flag per line; ';' and '#' start a comment\n"
		"anywhere on a line.  stonewall makes a job wait for all jobs before it\n"
		"and starts a new group; the jobs between stonewalls run together.  As\n"
		"in fio, options on the command line, before or after the file, are the\n"
		"defaults that the file's sections override (--output-format, --output\n"
		"and --allow-destroy are taken only there); a second job file starts\n"
		"from the defaults, after the jobs of the first.  ${NAME} in a value is\n"
		"the environment variable's value (nothing if not set).  Not supported:\n"
		"include and fio's $pagesize, $mb_memory and $ncpus.  An unknown option\n"
		"or bad value names FILE:LINE.\n"
		"\n"
		"--sweep (beyond fio) runs one job several times:\n"
		"  iodepth   at depths 1, 2, 4, 8... (each for --runtime, default 1s) until\n"
		"            two depths in a row give under 5%% more IOPS than the best, or\n"
		"            up to the job's --iodepth (default 256); IOPS, MB/s, p90 and\n"
		"            p99 completion latency per depth, and the best depth by\n"
		"            drvperf's rank T*L/(0.2*T + 0.8*L), T = IOPS/max IOPS and\n"
		"            L = min p90/p90.  Defaults: randread, io_uring, direct=1.\n"
		"  zones[:N] a sequential read of min(8 MiB, zone) at the start of each\n"
		"            of N (16) equal zones of the range: MB/s per zone, min, avg\n"
		"            and max, and where.  Defaults: read, bs=1m, direct=1.\n"
		"  Both read unless the job says --rw=write (checked as any write).\n"
		"\n"
		"examples:\n"
		"  iolens load --name=r --filename=/dev/loop0 --rw=randread --bs=4k \\\n"
		"      --direct=1 --ioengine=io_uring --iodepth=32 --runtime=10 --time_based\n"
		"  iolens load --name=w --filename=/tmp/f --size=1g --rw=write --bs=1m \\\n"
		"      --end_fsync=1 --output-format=json\n"
		"  iolens load --output-format=json two-phases.fio, where two-phases.fio is\n"
		"      [global]\n"
		"      filename=/dev/loop0\n"
		"      direct=1\n"
		"      [fill]\n"
		"      rw=write\n"
		"      bs=1m\n"
		"      [randread]       ; starts when fill has ended\n"
		"      stonewall\n"
		"      rw=randread\n"
		"  iolens load --filename=/dev/loop0 --sweep=iodepth --runtime=2\n"
		"  iolens load --filename=/dev/sdb --sweep=zones:32 --output-format=json\n");
}

int load_parse_args(int argc, char **argv, struct load_jobs *js)
{
	struct load_job_opts *cur = &js->global;
	int nfiles = 0, rc = 0;
	char **files = calloc(argc, sizeof(*files));

	if (!files) {
		pr_err("out of memory");
		return 1;
	}
	load_opts_init(&js->global);
	for (int i = 1; i < argc && !rc; i++) {
		const char *a = argv[i], *eq, *val = NULL, *err;
		char key[64], shown[LOG_EXCERPT_LEN];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			rc = -1;
			break;
		}
		if (strncmp(a, "--", 2)) {
			files[nfiles++] = argv[i];
			continue;
		}
		eq = strchr(a, '=');
		snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - a - 2) : (int)strlen(a + 2),
			 a + 2);
		if (!load_opt_known(key)) {
			rc = usage_err(CMD, "unknown option '--%s'",
				       log_excerpt(key, shown, sizeof(shown)));
			break;
		}
		if (eq)
			val = eq + 1;
		else if (!load_opt_is_flag(key) && i + 1 < argc)
			val = argv[++i];
		if (!strcmp(key, "name")) {
			cur = load_jobs_add(js);
			if (!cur) {
				rc = load_jobs_add_failed();
				break;
			}
		}
		rc = load_opt_set(cur, key, val, &err);
		if (!rc && cur != &js->global && load_opt_run_wide(key))
			rc = load_opt_set(&js->global, key, val, &err);
		if (rc)
			rc = usage_err(CMD, "--%s%s%s: %s", key, val ? "=" : "",
				       val ? log_excerpt(val, shown, sizeof(shown)) : "", err);
	}
	/* As fio's getopt: job files are read after every option, wherever
	 * they stand, and their jobs come after the command line's. */
	for (int i = 0; !rc && i < nfiles; i++)
		rc = load_jobfile_read(js, files[i], i);
	if (!rc && nfiles && !js->n)
		rc = usage_err(CMD, "%s: no job in it: add a [NAME] section", files[0]);
	free(files);
	if (rc)
		return rc;
	if (!js->n) {
		/* No --name: the global options are the one job. */
		cur = load_jobs_add(js);
		if (!cur)
			return load_jobs_add_failed();
		cur->given[0] = (struct load_given){ "name", "iolens" };
		cur->ngiven = 1;
		cur->name = "iolens";
	}
	return load_jobs_group(js);
}
