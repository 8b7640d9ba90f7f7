// SPDX-License-Identifier: GPL-2.0
/*
 * iolens load: synthetic I/O with fio's option names, fio's reports, and
 * nothing written where it could destroy data (see load_target.c).  Each
 * --name starts a job; options before the first are global and every job
 * starts from them, as on fio's command line.  Job files (load_jobfile.c)
 * come after the command line's jobs, as in fio.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli/commands.h"
#include "load/load.h"
#include "lib/log.h"
#include "lib/stop.h"

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
		"from the defaults, after the jobs of the first.  Not supported: include\n"
		"and $-variables.  An unknown option or bad value names FILE:LINE.\n"
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
	load_jobs_group(js);
	return 0;
}

static void print_header(FILE *f, const struct load_jobs *js, unsigned int nthreads)
{
	for (int i = 0; i < js->n; i++) {
		const struct load_job_opts *o = &js->v[i];

		fprintf(f, "%s: (g=%d): rw=%s, bs=(R) %lluB-%lluB, (W) %lluB-%lluB, (T) %lluB-%lluB, ioengine=%s, iodepth=%u\n",
			o->name, o->groupid, load_rw_name(o->rw),
			(unsigned long long)o->bsz[LOAD_READ].min,
			(unsigned long long)o->bsz[LOAD_READ].max,
			(unsigned long long)o->bsz[LOAD_WRITE].min,
			(unsigned long long)o->bsz[LOAD_WRITE].max,
			(unsigned long long)o->bsz[LOAD_TRIM].min,
			(unsigned long long)o->bsz[LOAD_TRIM].max,
			o->ioengine->name,
			o->ioengine->sync ? 1 : o->iodepth);
	}
	fprintf(f, "iolens-%s\nStarting %u thread%s\n\n", IOLENS_VERSION, nthreads,
		nthreads == 1 ? "" : "s");
	fflush(f);
}

/* Claims each block device written to, once: a second O_EXCL open of
 * the same device would fail against our own first one. */
static int claim(const struct load_job_opts *o, const struct load_target *t,
		 int *fds, dev_t *devs, int *nclaimed)
{
	struct stat st;
	int fd, rc;

	if (!t->is_blkdev || !t->writes || stat(o->filename, &st))
		return 0;
	for (int i = 0; i < *nclaimed; i++) {
		if (devs[i] == st.st_rdev)
			return 0;
	}
	rc = load_target_claim(o, t, &fd);
	if (rc)
		return rc;
	fds[*nclaimed] = fd;
	devs[(*nclaimed)++] = st.st_rdev;
	return 0;
}

int load_run(struct load_jobs *js, load_done_fn done, void *ctx)
{
	struct load_target *targets = calloc(js->n, sizeof(*targets));
	int *claimed = calloc(js->n, sizeof(int)), nclaimed = 0;
	dev_t *claimed_dev = calloc(js->n, sizeof(dev_t));
	struct load_thread *th = NULL;
	struct load_result *res = NULL;
	struct load_gate gate = {};
	struct load_disks *disks = NULL;
	unsigned int nth = 0, started = 0;
	int rc = 0, nres = 0;
	sigset_t block, old;
	FILE *out = stdout;

	if (!targets || !claimed || !claimed_dev) {
		pr_err("out of memory");
		rc = 1;
		goto out;
	}
	/* Every check of every job before any job starts: a refusal must
	 * come before a single byte is written anywhere. */
	for (int i = 0; i < js->n && !rc; i++) {
		rc = load_target_prepare(&js->v[i], &targets[i]);
		nth += js->v[i].numjobs;
	}
	for (int i = 0; i < js->n && !rc; i++)
		rc = claim(&js->v[i], &targets[i], claimed, claimed_dev, &nclaimed);
	if (rc)
		goto out;
	rc = load_output_open(&js->global, &out);
	if (rc)
		goto out;
	th = calloc(nth, sizeof(*th));
	res = calloc(nth, sizeof(*res));
	if (!th || !res) {
		pr_err("out of memory");
		rc = 1;
		goto out;
	}
	for (unsigned int i = 0; i < nth; i++)
		th[i].fd = -1;
	nth = 0;
	for (int i = 0, wave = 0; i < js->n; i++) {
		wave += i && js->v[i].stonewall;
		for (unsigned int k = 0; k < js->v[i].numjobs; k++, nth++) {
			struct load_thread *t = &th[nth];

			t->o = &js->v[i];
			t->gate = &gate;
			t->wave = wave;
			t->target = &targets[i];
			t->eng = t->o->ioengine;
			t->job_index = nth;
			t->fd = load_target_open(t->o, t->target);
			if (t->fd < 0) {
				pr_err("%s: %s", t->o->filename, strerror(errno));
				rc = 1;
				goto out;
			}
		}
	}
	if (load_gate_init(&gate, th, nth)) {
		pr_err("out of memory");
		rc = 1;
		goto out;
	}
	if (!done && js->global.format == LOAD_FMT_NORMAL)
		print_header(out, js, nth);
	stop_catch();
	/* Only this thread takes SIGINT and SIGTERM: the jobs never see a
	 * wait cut short, they see the stop flag at their next batch. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	disks = load_disks_start(js->v, js->n);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	started = load_monitor_start(th, nth);
	if (started < nth)
		rc = 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	load_monitor_wait(th, started, &js->global, out);
	load_disks_end(disks);

	for (unsigned int i = 0; i < started; i++) {
		struct load_result *r;

		/* group_reporting: one result per group; the threads of a
		 * group are next to each other. */
		if (!js->global.group_reporting || !nres ||
		    res[nres - 1].groupid != th[i].o->groupid) {
			r = &res[nres++];
			r->o = th[i].o;
			r->global = &js->global;
			r->groupid = th[i].o->groupid;
		} else {
			r = &res[nres - 1];
		}
		r->nthreads++;
		load_stats_merge(&r->st, &th[i].st);
		if (th[i].st.error)
			rc = 1;
	}
	if (done)
		done(ctx, res, nres);
	else if (js->global.format == LOAD_FMT_JSON)
		load_report_json(out, res, nres, &js->global, disks);
	else
		load_report_normal(out, res, nres, disks);
out:
	for (unsigned int i = 0; th && i < nth; i++) {
		if (th[i].fd >= 0)
			close(th[i].fd);
		free(th[i].ios);
		free(th[i].free);
		free(th[i].queued);
		free(th[i].bufs);
	}
	for (int i = 0; i < nclaimed; i++)
		close(claimed[i]);
	rc |= load_output_close(out, &js->global);
	load_gate_free(&gate);
	free(th);
	free(res);
	load_disks_free(disks);
	free(targets);
	free(claimed);
	free(claimed_dev);
	return rc;
}

int cmd_load(int argc, char **argv)
{
	struct load_jobs js = {};
	int rc = load_parse_args(argc, argv, &js);

	if (rc < 0)
		rc = 0;
	else if (!rc)
		rc = js.global.sweep ? load_sweep_run(&js) : load_run(&js, NULL, NULL);
	load_jobs_free(&js);
	return rc;
}

void load_jobs_free(struct load_jobs *js)
{
	free(js->v);
	for (int i = 0; i < js->ntexts; i++)
		free(js->texts[i]);
	free(js->texts);
}
