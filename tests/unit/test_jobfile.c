// SPDX-License-Identifier: GPL-2.0
/* fio job files: sections, [global] defaults, comments, groups, errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "load/engine.h"
#include "load/load.h"
#include "lib/log.h"
#include "load/opts.h"

#define NPATH 2

/* The temp job files of one test and the jobs read from them, freed by
 * the teardown, which cmocka runs also when the test fails. */
struct ctx {
	char path[NPATH][64];
	int npath;
	struct load_jobs js;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	load_opts_init(&c->js.global);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	for (int i = 0; i < c->npath; i++)
		unlink(c->path[i]);
	load_jobs_free(&c->js);
	free(c);
	return 0;
}

/* A temp file holding `text`; its path stays valid until the teardown. */
static const char *job_file(struct ctx *c, const char *text)
{
	char *path;
	size_t len = strlen(text);
	int fd;

	assert_true(c->npath < NPATH);
	path = c->path[c->npath];
	snprintf(path, sizeof(c->path[0]), "/tmp/iolens-jobfile-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	c->npath++;
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
	return path;
}

/* load_jobfile_read() of `text` as the first job file of the run. */
static int read_text(struct ctx *c, const char *text)
{
	return load_jobfile_read(&c->js, job_file(c, text), 0);
}

/* load_jobfile_read() of `text`, written over the test's first temp file,
 * into jobs of its own. */
static int read_fresh(struct ctx *c, const char *text)
{
	struct load_jobs js = {};
	FILE *f;
	int rc;

	if (!c->npath)
		job_file(c, "");
	f = fopen(c->path[0], "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	load_opts_init(&js.global);
	rc = load_jobfile_read(&js, c->path[0], 0);
	load_jobs_free(&js);
	return rc;
}

static void assert_bs(const struct load_job_opts *o, __u64 bs)
{
	assert_int_equal(o->bs, bs);
	for (int d = 0; d < LOAD_DIRS; d++) {
		assert_int_equal(o->bsz[d].min, bs);
		assert_int_equal(o->bsz[d].max, bs);
		assert_int_equal(o->bsz[d].nsplit, 0);
	}
}

/* Every job starts from [global]; a job's own options are its "given". */
static void test_global_inherited(void **state)
{
	struct ctx *c = *state;
	struct load_jobs *js = &c->js;

	assert_int_equal(read_text(c,
		"[global]\n"
		"rw=randread\n"
		"bs=8k\n"
		"iodepth=16\n"
		"ioengine=io_uring\n"
		"[first]\n"
		"[second]\n"), 0);
	assert_int_equal(js->n, 2);
	assert_string_equal(js->v[0].name, "first");
	assert_string_equal(js->v[1].name, "second");
	for (int i = 0; i < 2; i++) {
		const struct load_job_opts *o = &js->v[i];

		assert_int_equal(o->rw, LOAD_RW_RANDREAD);
		assert_bs(o, 8192);
		assert_int_equal(o->iodepth, 16);
		assert_string_equal(o->ioengine->name, "io_uring");
		/* What neither section sets keeps fio's default. */
		assert_int_equal(o->numjobs, 1);
		assert_int_equal(o->rwmixread, 50);
		assert_false(o->direct);
		assert_null(o->filename);
		assert_int_equal(o->ngiven, 0);
	}
	assert_int_equal(js->global.rw, LOAD_RW_RANDREAD);
	assert_int_equal(js->global.ngiven, 4);
	assert_string_equal(js->global.given[1].name, "bs");
	assert_string_equal(js->global.given[1].value, "8k");
}

/* A section's own option wins over [global] for that job only. */
static void test_section_overrides_global(void **state)
{
	struct ctx *c = *state;
	struct load_jobs *js = &c->js;

	assert_int_equal(read_text(c,
		"[global]\n"
		"bs=8k\n"
		"filename=/tmp/shared\n"
		"direct=1\n"
		"[big]\n"
		"bs=1m\n"
		"direct=0\n"
		"[small]\n"
		"filename=/tmp/own\n"), 0);
	assert_int_equal(js->n, 2);
	assert_string_equal(js->v[0].name, "big");
	assert_bs(&js->v[0], 1048576);
	assert_false(js->v[0].direct);
	assert_string_equal(js->v[0].filename, "/tmp/shared");
	assert_int_equal(js->v[0].ngiven, 2);
	assert_string_equal(js->v[0].given[0].name, "bs");
	assert_string_equal(js->v[0].given[0].value, "1m");
	assert_string_equal(js->v[0].given[1].name, "direct");
	assert_string_equal(js->v[0].given[1].value, "0");

	assert_string_equal(js->v[1].name, "small");
	assert_bs(&js->v[1], 8192);
	assert_true(js->v[1].direct);
	assert_string_equal(js->v[1].filename, "/tmp/own");
	assert_int_equal(js->v[1].ngiven, 1);
	/* The global section itself is untouched by the jobs. */
	assert_bs(&js->global, 8192);
	assert_string_equal(js->global.filename, "/tmp/shared");
}

/* As in fio, a [global] after a job sets only the jobs after it, and any
 * section whose name starts with "global" is a global one. */
static void test_global_after_job(void **state)
{
	struct ctx *c = *state;
	struct load_jobs *js = &c->js;

	assert_int_equal(read_text(c,
		"[before]\n"
		"[global]\n"
		"rw=write\n"
		"[middle]\n"
		"[global-more]\n"
		"numjobs=4\n"
		"[after]\n"), 0);
	assert_int_equal(js->n, 3);
	assert_string_equal(js->v[0].name, "before");
	assert_int_equal(js->v[0].rw, LOAD_RW_READ);
	assert_int_equal(js->v[0].numjobs, 1);
	assert_string_equal(js->v[1].name, "middle");
	assert_int_equal(js->v[1].rw, LOAD_RW_WRITE);
	assert_int_equal(js->v[1].numjobs, 1);
	assert_string_equal(js->v[2].name, "after");
	assert_int_equal(js->v[2].rw, LOAD_RW_WRITE);
	assert_int_equal(js->v[2].numjobs, 4);
}

/* '#' and ';' start a comment anywhere on a line (fio cuts the line at the
 * first of them); blanks around keys, values and names are dropped; CRLF
 * line ends and a last line without '\n' are fine. */
static void test_comments_and_blanks(void **state)
{
	struct ctx *c = *state;
	struct load_jobs *js = &c->js;
	const struct load_job_opts *o;

	assert_int_equal(read_text(c,
		"# a comment before anything\n"
		"; another\n"
		"\n"
		"   \t\n"
		"[ job1 ]   # the first job\n"
		"  bs = 16k ; a trailing comment\r\n"
		"rw=randwrite# no blank before it\n"
		"filename=/tmp/a;b\n"
		"\tnumjobs\t=\t3\t\r\n"
		"#bs=1m\n"
		";iodepth=8\n"
		"time_based ; a flag\n"
		"runtime=2"), 0);
	assert_int_equal(js->n, 1);
	o = &js->v[0];
	assert_string_equal(o->name, "job1");
	assert_bs(o, 16384);
	assert_int_equal(o->rw, LOAD_RW_RANDWRITE);
	assert_string_equal(o->filename, "/tmp/a");
	assert_int_equal(o->numjobs, 3);
	assert_int_equal(o->iodepth, 1);
	assert_true(o->time_based);
	assert_int_equal(o->runtime_ns, 2000000000ULL);
	assert_int_equal(o->ngiven, 6);
	assert_string_equal(o->given[5].name, "runtime");
	assert_string_equal(o->given[5].value, "2");
}

/* stonewall (and its alias wait_for_previous) and new_group open a group
 * when a job is before them, as fio's add_job() numbers groupid. */
static void test_stonewall_new_group(void **state)
{
	struct ctx *c = *state;
	struct load_jobs *js = &c->js;
	static const int group[] = { 0, 0, 1, 1, 2, 3, 4 };
	static const bool wall[] = { true, false, true, false, false, true, true };
	static const bool newg[] = { false, false, false, false, true, false, false };

	assert_int_equal(read_text(c,
		"[a]\n"
		"stonewall\n"		/* the first job: no new group */
		"[b]\n"
		"[c]\n"
		"stonewall\n"
		"[d]\n"
		"[e]\n"
		"new_group\n"
		"[f]\n"
		"wait_for_previous=1\n"
		"[g]\n"
		"stonewall=true\n"), 0);
	load_jobs_group(js);
	assert_int_equal(js->n, 7);
	for (int i = 0; i < 7; i++) {
		assert_int_equal(js->v[i].name[0], 'a' + i);
		assert_int_equal(js->v[i].groupid, group[i]);
		assert_int_equal(js->v[i].stonewall, wall[i]);
		assert_int_equal(js->v[i].new_group, newg[i]);
	}
}

/* A job's stonewall=0 undoes a [global] stonewall. */
static void test_stonewall_from_global(void **state)
{
	struct ctx *c = *state;
	struct load_jobs *js = &c->js;

	assert_int_equal(read_text(c,
		"[global]\n"
		"stonewall\n"
		"[a]\n"
		"[b]\n"
		"[c]\n"
		"stonewall=0\n"
		"[d]\n"), 0);
	load_jobs_group(js);
	assert_int_equal(js->n, 4);
	assert_int_equal(js->v[0].groupid, 0);
	assert_int_equal(js->v[1].groupid, 1);
	assert_false(js->v[2].stonewall);
	assert_int_equal(js->v[2].groupid, 1);
	assert_int_equal(js->v[3].groupid, 2);
}

/* Options fio has not, or takes only on its command line, and what
 * iolens does not support, are refused with the usage exit code. */
static void test_unknown_options_refused(void **state)
{
	static const char *const bad[] = {
		"[a]\nbogus=1\n",
		"[a]\nblocksize_unknown\n",
		"[global]\nnot_an_option=4k\n[a]\n",
		"[a]\noutput-format=json\n",
		"[a]\noutput=/tmp/report\n",
		"[a]\nallow-destroy\n",
		"[a]\neta=never\n",
		"[a]\nsweep=iodepth\n",
		"include other.fio\n[a]\n",
		"[a]\ninclude other.fio\n",
		"[a]\nsize=$mb_of_ram\n",
		"[a]\nbs=4k\n--bs=8k\n",
	};
	struct ctx *c = *state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(read_fresh(c, bad[i]), 2);
}


/* Lines that are no section header, an option outside of any section, and
 * bad values. */
static void test_malformed_lines(void **state)
{
	static const char *const bad[] = {
		"[a\nbs=4k\n",
		"[]\n",
		"[a]]x\n",
		"a]\n",
		"bs=4k\n[a]\n",
		"rw=write\n",
		"[a]\nbs=4q\n",
		"[a]\nbs=0\n",
		"[a]\nbs=\n",
		"[a]\nrw\n",
		"[a]\nrw=sideways\n",
		"[a]\niodepth=0\n",
		"[a]\nnumjobs=-1\n",
		"[a]\nrwmixread=101\n",
		"[a]\ndirect=maybe\n",
		"[a]\nruntime=10x\n",
		"[a]\nfilename=\n",
	};
	struct ctx *c = *state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(read_fresh(c, bad[i]), 2);
}


/* read_fresh() of `text` with what it says on stderr in `out`. */
static int read_fresh_said(struct ctx *c, const char *text, char *out, size_t size)
{
	FILE *f = tmpfile();
	int saved = dup(2), rc;
	size_t n;

	assert_non_null(f);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fileno(f), 2), 2);
	rc = read_fresh(c, text);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	rewind(f);
	n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	fclose(f);
	return rc;
}

/* fio's "include FILE", before any section or in one, is refused by name
 * with its line and the file it names (once "outside of any [section]"). */
static void test_include_named(void **state)
{
	static const struct {
		const char *text, *said;
	} cases[] = {
		{ "include other.fio\n[a]\n", ":1: include is not supported: copy what 'other.fio' holds into this file (" },
		{ "; fio's own\n\tinclude  glob.fio  \n", ":2: include is not supported: copy what 'glob.fio' holds into this file (" },
		{ "[global]\nbs=4k\n[a]\ninclude x\n", ":4: include is not supported: copy what 'x' holds into this file (" },
		{ "include\n", ":1: include is not supported: copy what it names into this file (" },
	};
	struct ctx *c = *state;
	char said[512], want[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(read_fresh_said(c, cases[i].text, said, sizeof(said)), 2);
		snprintf(want, sizeof(want), "iolens load: %s%s", c->path[0], cases[i].said);
		/* usage_err() adds where to read more after it. */
		assert_true(strlen(said) > strlen(want));
		said[strlen(want)] = '\0';
		assert_string_equal(said, want);
	}
	/* An option whose name starts so is no include. */
	assert_int_equal(read_fresh_said(c, "[a]\nincludes=1\n", said, sizeof(said)), 2);
	assert_non_null(strstr(said, "unknown option 'includes'"));
}

/* The error stops the reading: jobs before the bad line are kept, none
 * after it is added. */
static void test_error_stops_reading(void **state)
{
	struct ctx *c = *state;

	assert_int_equal(read_text(c,
		"[one]\n"
		"bs=8k\n"
		"[two]\n"
		"frobnicate=1\n"
		"[three]\n"), 2);
	assert_int_equal(c->js.n, 2);
	assert_string_equal(c->js.v[0].name, "one");
	assert_string_equal(c->js.v[1].name, "two");
}

/* An empty file and one of comments only hold no job: the reader takes
 * them, the command line refuses a run of no job. */
static void test_empty_file(void **state)
{
	struct ctx *c = *state;
	const char *comments;
	char *argv[3];

	assert_int_equal(read_text(c, ""), 0);
	assert_int_equal(c->js.n, 0);
	comments = job_file(c, "# nothing\n;\n\n   \n");
	assert_int_equal(load_jobfile_read(&c->js, comments, 1), 0);
	assert_int_equal(c->js.n, 0);
	load_jobs_free(&c->js);
	memset(&c->js, 0, sizeof(c->js));

	argv[0] = "load";
	argv[1] = c->path[0];
	argv[2] = NULL;
	assert_int_equal(load_parse_args(2, argv, &c->js), 2);
}

static void test_missing_file(void **state)
{
	struct ctx *c = *state;

	assert_int_equal(load_jobfile_read(&c->js,
					   "/tmp/iolens-no-such-dir/job.fio", 0), 2);
	assert_int_equal(c->js.n, 0);
}

/* A file longer than the reader's first buffer, its job at the end. */
static void test_long_file(void **state)
{
	struct ctx *c = *state;
	size_t len = 0, cap = 20000;
	char *text = malloc(cap);

	assert_non_null(text);
	while (len < 9000)
		len += snprintf(text + len, cap - len, "# comment line %zu to pad the file out\n", len);
	snprintf(text + len, cap - len, "[last]\nbs=32k\nrw=trim\n");
	assert_int_equal(read_text(c, text), 0);
	free(text);
	assert_int_equal(c->js.n, 1);
	assert_string_equal(c->js.v[0].name, "last");
	assert_bs(&c->js.v[0], 32768);
	assert_int_equal(c->js.v[0].rw, LOAD_RW_TRIM);
}

/* A temp file of `len` bytes of `text` (NULs and all). */
static const char *job_file_n(struct ctx *c, const char *text, size_t len)
{
	const char *path = job_file(c, "");
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* A NUL byte would end the text for the parser and drop what follows it
 * without a word: the file is refused, no job of it kept. */
static void test_nul_byte_refused(void **state)
{
	static const char text[] = "[a]\nfilename=/tmp/t\nsize=64k\nrw=read\n\0\n"
				   "[b]\nfilename=/tmp/t\nsize=64k\nrw=read\n";
	struct ctx *c = *state;

	assert_int_equal(load_jobfile_read(&c->js, job_file_n(c, text, sizeof(text) - 1), 0), 2);
	assert_int_equal(c->js.n, 0);
}

/* Over 1 MiB is no job file (`iolens load /dev/zero`): refused, not read
 * to the end of the device or of memory. */
static void test_oversize_refused(void **state)
{
	struct ctx *c = *state;
	size_t len = (1 << 20) + 4096;
	char *text = malloc(len);

	assert_non_null(text);
	memset(text, '#', len);
	assert_int_equal(load_jobfile_read(&c->js, job_file_n(c, text, len), 0), 2);
	free(text);
	assert_int_equal(load_jobfile_read(&c->js, "/dev/zero", 0), 2);
	assert_int_equal(c->js.n, 0);
}

/* Each job costs its options' room: at most LOAD_MAX_JOBS of them. */
static void test_too_many_jobs(void **state)
{
	struct ctx *c = *state;
	size_t cap = (LOAD_MAX_JOBS + 1) * 16, len = 0;
	char *text = malloc(cap);

	assert_non_null(text);
	for (int i = 0; i <= LOAD_MAX_JOBS; i++)
		len += snprintf(text + len, cap - len, "[j%d]\n", i);
	assert_int_equal(read_text(c, text), 2);
	free(text);
	assert_int_equal(c->js.n, LOAD_MAX_JOBS);
}

/* What a message echoes of a bad line is cut and its control bytes
 * escaped: a 10 MB line of them gives one short line. */
static void test_echo_cut_and_escaped(void **state)
{
	char buf[LOG_EXCERPT_LEN], in[200];

	(void)state;
	memset(in, '\x1b', sizeof(in) - 1);
	in[sizeof(in) - 1] = '\0';
	log_excerpt(in, buf, sizeof(buf));
	assert_true(strlen(buf) < sizeof(buf));
	assert_null(strchr(buf, '\x1b'));
	assert_memory_equal(buf, "\\x1b\\x1b", 8);
	assert_string_equal(buf + strlen(buf) - 3, "...");
	assert_string_equal(log_excerpt("bs=4q", buf, sizeof(buf)), "bs=4q");
}

/* As in fio, options on the command line, before or after the file, are
 * defaults that the file's sections override; jobs named on the command
 * line come before the file's. */
static void test_cmdline_defaults(void **state)
{
	struct ctx *c = *state;
	struct load_jobs *js = &c->js;
	const char *path = job_file(c,
		"[global]\n"
		"iodepth=2\n"
		"[a]\n"
		"[b]\n"
		"rw=randread\n"
		"bs=64k\n");
	char *argv[] = { "load", "--rw=write", "--iodepth=8", (char *)path,
			 "--bs", "16k", "--ioengine=libaio", NULL };

	memset(js, 0, sizeof(*js));
	assert_int_equal(load_parse_args(7, argv, js), 0);
	assert_int_equal(js->n, 2);
	assert_string_equal(js->v[0].name, "a");
	assert_int_equal(js->v[0].rw, LOAD_RW_WRITE);
	assert_int_equal(js->v[0].iodepth, 2);
	assert_bs(&js->v[0], 16384);
	assert_string_equal(js->v[0].ioengine->name, "libaio");
	assert_string_equal(js->v[1].name, "b");
	assert_int_equal(js->v[1].rw, LOAD_RW_RANDREAD);
	assert_int_equal(js->v[1].iodepth, 2);
	assert_bs(&js->v[1], 65536);
	assert_string_equal(js->v[1].ioengine->name, "libaio");
	assert_int_equal(js->v[0].groupid, 0);
	assert_int_equal(js->v[1].groupid, 0);
}

static void test_cmdline_job_first(void **state)
{
	struct ctx *c = *state;
	struct load_jobs *js = &c->js;
	const char *path = job_file(c, "[fromfile]\n");
	char *argv[] = { "load", (char *)path, "--name=cli", "--rw=write", NULL };

	memset(js, 0, sizeof(*js));
	assert_int_equal(load_parse_args(4, argv, js), 0);
	assert_int_equal(js->n, 2);
	assert_string_equal(js->v[0].name, "cli");
	assert_int_equal(js->v[0].rw, LOAD_RW_WRITE);
	assert_string_equal(js->v[1].name, "fromfile");
	/* --rw came after --name: that job's, not a default. */
	assert_int_equal(js->v[1].rw, LOAD_RW_READ);
}

/* As fio: a second job file starts from the default options and its first
 * job waits for the jobs before it. */
static void test_second_file(void **state)
{
	struct ctx *c = *state;
	struct load_jobs *js = &c->js;
	const char *f1 = job_file(c,
		"[global]\n"
		"bs=8k\n"
		"[a]\n"
		"[b]\n");
	const char *f2 = job_file(c,
		"[c]\n"
		"[d]\n"
		"rw=write\n");
	char *argv[] = { "load", (char *)f1, (char *)f2, NULL };

	memset(js, 0, sizeof(*js));
	assert_int_equal(load_parse_args(3, argv, js), 0);
	assert_int_equal(js->n, 4);
	assert_bs(&js->v[0], 8192);
	assert_bs(&js->v[1], 8192);
	assert_string_equal(js->v[2].name, "c");
	assert_bs(&js->v[2], 4096);
	assert_true(js->v[2].stonewall);
	assert_string_equal(js->v[3].name, "d");
	assert_bs(&js->v[3], 4096);
	assert_false(js->v[3].stonewall);
	assert_int_equal(js->v[3].rw, LOAD_RW_WRITE);
	assert_int_equal(js->v[0].groupid, 0);
	assert_int_equal(js->v[1].groupid, 0);
	assert_int_equal(js->v[2].groupid, 1);
	assert_int_equal(js->v[3].groupid, 1);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_global_inherited),
		T(test_section_overrides_global),
		T(test_global_after_job),
		T(test_comments_and_blanks),
		T(test_stonewall_new_group),
		T(test_stonewall_from_global),
		T(test_unknown_options_refused),
		T(test_malformed_lines),
		T(test_include_named),
		T(test_error_stops_reading),
		T(test_empty_file),
		T(test_missing_file),
		T(test_long_file),
		T(test_nul_byte_refused),
		T(test_oversize_refused),
		T(test_too_many_jobs),
		T(test_echo_cut_and_escaped),
		T(test_cmdline_defaults),
		T(test_cmdline_job_first),
		T(test_second_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
