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

struct job_case;

/* The temp job files of one test and the jobs read from them, freed by
 * the teardown, which cmocka runs also when the test fails. */
struct ctx {
	char path[NPATH][64];
	int npath;
	struct load_jobs js;
	const struct job_case *jcase;	/* test_case()'s */
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	c->jcase = *state;	/* a case's initial state; NULL for the others */
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

/*
 * What a case expects of a job: words "key=value", each a field of struct
 * load_job_opts as field_text() writes it.  A field no word names is not
 * checked: its absence is the only "any", since LOAD_RW_READ, false and 0
 * are values like the others.
 */
enum field_kind { K_STR, K_UINT, K_INT, K_U64, K_BOOL, K_RW, K_BS, K_ENGINE,
		  K_GIVEN };

#define OFF(f) offsetof(struct load_job_opts, f)
static const struct field {
	const char *key;
	enum field_kind kind;
	size_t at;
} fields[] = {
	{ "name", K_STR, OFF(name) },
	{ "filename", K_STR, OFF(filename) },	/* "filename=": none */
	{ "rw", K_RW, OFF(rw) },		/* fio's name */
	{ "bs", K_BS, 0 },			/* bytes, every direction's */
	{ "iodepth", K_UINT, OFF(iodepth) },
	{ "numjobs", K_UINT, OFF(numjobs) },
	{ "rwmixread", K_UINT, OFF(rwmixread) },
	{ "ioengine", K_ENGINE, OFF(ioengine) },
	{ "direct", K_BOOL, OFF(direct) },
	{ "time_based", K_BOOL, OFF(time_based) },
	{ "runtime_ns", K_U64, OFF(runtime_ns) },
	{ "stonewall", K_BOOL, OFF(stonewall) },
	{ "new_group", K_BOOL, OFF(new_group) },
	{ "groupid", K_INT, OFF(groupid) },
	{ "given", K_GIVEN, 0 },	/* name:value,... in the order given */
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static void field_text(const struct load_job_opts *o, const struct field *f,
		       char *buf, size_t size)
{
	const void *p = (const char *)o + f->at;
	size_t n = 0;

	buf[0] = '\0';
	switch (f->kind) {
	case K_STR:
		snprintf(buf, size, "%s", *(char *const *)p ? : "");
		break;
	case K_UINT:
		snprintf(buf, size, "%u", *(const unsigned int *)p);
		break;
	case K_INT:
		snprintf(buf, size, "%d", *(const int *)p);
		break;
	case K_U64:
		snprintf(buf, size, "%llu", *(const unsigned long long *)p);
		break;
	case K_BOOL:
		snprintf(buf, size, "%d", *(const bool *)p);
		break;
	case K_RW:
		snprintf(buf, size, "%s", load_rw_name(o->rw));
		break;
	case K_ENGINE:
		snprintf(buf, size, "%s", o->ioengine->name);
		break;
	case K_BS:
		/* One size: each direction's range is that size, unsplit. */
		n = snprintf(buf, size, "%llu", (unsigned long long)o->bs);
		for (int d = 0; d < LOAD_DIRS; d++) {
			const struct load_bs *b = &o->bsz[d];

			if (b->min != o->bs || b->max != o->bs || b->nsplit)
				n += snprintf(buf + n, size - n, " but %s %llu-%llu/%u",
					      load_dir_name(d), (unsigned long long)b->min,
					      (unsigned long long)b->max, b->nsplit);
		}
		break;
	case K_GIVEN:
		for (int i = 0; i < o->ngiven; i++)
			n += snprintf(buf + n, size - n, "%s%s:%s", i ? "," : "",
				      o->given[i].name, o->given[i].value ? : "");
		break;
	}
}

/* Each word of `want` against `o`; `who` names it in a failure. */
static void check_job(const struct load_job_opts *o, const char *who,
		      const char *want)
{
	char words[1024], got[512], said[600], wanted[600], *save;

	assert_true(strlen(want) < sizeof(words));
	strcpy(words, want);
	for (char *w = strtok_r(words, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		char *value = strchr(w, '=');
		const struct field *f = NULL;

		assert_non_null(value);
		*value++ = '\0';
		for (size_t i = 0; i < NFIELDS && !f; i++)
			if (!strcmp(fields[i].key, w))
				f = &fields[i];
		assert_non_null(f);
		field_text(o, f, got, sizeof(got));
		snprintf(said, sizeof(said), "%s %s=%s", who, w, got);
		snprintf(wanted, sizeof(wanted), "%s %s=%s", who, w, value);
		assert_string_equal(said, wanted);
	}
}

#define MAX_CASE_JOBS 8
#define MAX_CASE_ARGS 8

/*
 * A case: job files' text, read as the first job file of a run or through
 * a command line as `iolens load` reads it, and what the jobs hold.
 */
struct job_case {
	const char *name;		/* the test's, in cmocka's report */
	const char *file[NPATH];
	/* The command line, "@0" and "@1" standing for the files' paths;
	 * none: file[0] read by load_jobfile_read(), then grouped as the
	 * command line groups the jobs. */
	const char *argv[MAX_CASE_ARGS];
	int rc;				/* of the read or of the parse */
	int n;				/* jobs read */
	const char *job[MAX_CASE_JOBS];	/* check_job()'s words for each;
					 * NULL: none */
	const char *each;		/* for every job; NULL: none */
	const char *global;		/* for js->global; NULL: unchecked */
};

static const struct job_case cases[] = {
	/* Every job starts from [global]; a job's own options are its
	 * "given".  What neither section sets keeps fio's default. */
	{ "global_inherited", {
		"[global]\n"
		"rw=randread\n"
		"bs=8k\n"
		"iodepth=16\n"
		"ioengine=io_uring\n"
		"[first]\n"
		"[second]\n" }, .n = 2, .job = { "name=first", "name=second" },
	  .each = "rw=randread bs=8192 iodepth=16 ioengine=io_uring numjobs=1"
		  " rwmixread=50 direct=0 filename= given=",
	  .global = "rw=randread given=rw:randread,bs:8k,iodepth:16,ioengine:io_uring" },
	/* A section's own option wins over [global] for that job only; the
	 * global section itself is untouched by the jobs. */
	{ "section_overrides_global", {
		"[global]\n"
		"bs=8k\n"
		"filename=/tmp/shared\n"
		"direct=1\n"
		"[big]\n"
		"bs=1m\n"
		"direct=0\n"
		"[small]\n"
		"filename=/tmp/own\n" }, .n = 2, .job = {
		"name=big bs=1048576 direct=0 filename=/tmp/shared"
		" given=bs:1m,direct:0",
		"name=small bs=8192 direct=1 filename=/tmp/own"
		" given=filename:/tmp/own" },
	  .global = "bs=8192 filename=/tmp/shared" },
	/* As in fio, a [global] after a job sets only the jobs after it, and
	 * any section whose name starts with "global" is a global one. */
	{ "global_after_job", {
		"[before]\n"
		"[global]\n"
		"rw=write\n"
		"[middle]\n"
		"[global-more]\n"
		"numjobs=4\n"
		"[after]\n" }, .n = 3, .job = {
		"name=before rw=read numjobs=1",
		"name=middle rw=write numjobs=1",
		"name=after rw=write numjobs=4" } },
	/* '#' and ';' start a comment anywhere on a line (fio cuts the line
	 * at the first of them); blanks around keys, values and names are
	 * dropped; CRLF line ends and a last line without '\n' are fine. */
	{ "comments_and_blanks", {
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
		"runtime=2" }, .n = 1, .job = {
		"name=job1 bs=16384 rw=randwrite filename=/tmp/a numjobs=3"
		" iodepth=1 time_based=1 runtime_ns=2000000000"
		" given=bs:16k,rw:randwrite,filename:/tmp/a,numjobs:3,"
		"time_based:1,runtime:2" } },
	/* stonewall (and its alias wait_for_previous) and new_group open a
	 * group when a job is before them, as fio's add_job() numbers
	 * groupid. */
	{ "stonewall_new_group", {
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
		"stonewall=true\n" }, .n = 7, .job = {
		"name=a groupid=0 stonewall=1 new_group=0",
		"name=b groupid=0 stonewall=0 new_group=0",
		"name=c groupid=1 stonewall=1 new_group=0",
		"name=d groupid=1 stonewall=0 new_group=0",
		"name=e groupid=2 stonewall=0 new_group=1",
		"name=f groupid=3 stonewall=1 new_group=0",
		"name=g groupid=4 stonewall=1 new_group=0" } },
	/* A job's stonewall=0 undoes a [global] stonewall. */
	{ "stonewall_from_global", {
		"[global]\n"
		"stonewall\n"
		"[a]\n"
		"[b]\n"
		"[c]\n"
		"stonewall=0\n"
		"[d]\n" }, .n = 4, .job = {
		"groupid=0", "groupid=1", "stonewall=0 groupid=1", "groupid=2" } },
	/* The error stops the reading: jobs before the bad line are kept,
	 * none after it is added. */
	{ "error_stops_reading", {
		"[one]\n"
		"bs=8k\n"
		"[two]\n"
		"frobnicate=1\n"
		"[three]\n" }, .rc = 2, .n = 2, .job = { "name=one", "name=two" } },
	/* As in fio, options on the command line, before or after the file,
	 * are defaults that the file's sections override; jobs named on the
	 * command line come before the file's. */
	{ "cmdline_defaults", {
		"[global]\n"
		"iodepth=2\n"
		"[a]\n"
		"[b]\n"
		"rw=randread\n"
		"bs=64k\n" },
	  { "load", "--rw=write", "--iodepth=8", "@0", "--bs", "16k",
	    "--ioengine=libaio" }, .n = 2, .job = {
		"name=a rw=write iodepth=2 bs=16384 ioengine=libaio groupid=0",
		"name=b rw=randread iodepth=2 bs=65536 ioengine=libaio groupid=0" } },
	/* --rw after --name is that job's, not a default. */
	{ "cmdline_job_first", { "[fromfile]\n" },
	  { "load", "@0", "--name=cli", "--rw=write" }, .n = 2, .job = {
		"name=cli rw=write", "name=fromfile rw=read" } },
	/* As fio: a second job file starts from the default options and its
	 * first job waits for the jobs before it. */
	{ "second_file", {
		"[global]\n"
		"bs=8k\n"
		"[a]\n"
		"[b]\n",
		"[c]\n"
		"[d]\n"
		"rw=write\n" }, { "load", "@0", "@1" }, .n = 4, .job = {
		"name=a bs=8192 groupid=0",
		"name=b bs=8192 groupid=0",
		"name=c bs=4096 stonewall=1 groupid=1",
		"name=d bs=4096 stonewall=0 rw=write groupid=1" } },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static void test_case(void **state)
{
	struct ctx *c = *state;
	const struct job_case *k = c->jcase;
	const char *path[NPATH] = {};
	char *argv[MAX_CASE_ARGS + 1], who[16];
	int argc = 0;

	for (int i = 0; i < NPATH && k->file[i]; i++)
		path[i] = job_file(c, k->file[i]);
	if (k->argv[0]) {
		for (; argc < MAX_CASE_ARGS && k->argv[argc]; argc++) {
			const char *a = k->argv[argc];

			argv[argc] = (char *)(a[0] == '@' ? path[a[1] - '0'] : a);
		}
		argv[argc] = NULL;
		memset(&c->js, 0, sizeof(c->js));
		assert_int_equal(load_parse_args(argc, argv, &c->js), k->rc);
	} else {
		assert_int_equal(load_jobfile_read(&c->js, path[0], 0), k->rc);
		load_jobs_group(&c->js);
	}
	assert_int_equal(c->js.n, k->n);
	assert_true(k->n <= MAX_CASE_JOBS);
	for (int i = 0; i < k->n; i++) {
		snprintf(who, sizeof(who), "job %d", i);
		if (k->job[i])
			check_job(&c->js.v[i], who, k->job[i]);
		if (k->each)
			check_job(&c->js.v[i], who, k->each);
	}
	if (k->global)
		check_job(&c->js.global, "global", k->global);
}

/* Job files refused with the usage exit code. */
static void test_refused(void **state)
{
	static const char *const bad[] = {
		/* Options fio has not, or takes only on its command line,
		 * and what iolens does not support. */
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
		/* Lines that are no section header, an option outside of
		 * any section, and bad values. */
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
	check_job(&c->js.v[0], "job 0", "name=last bs=32768 rw=trim");
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

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	static const struct CMUnitTest others[] = {
		T(test_refused),
		T(test_include_named),
		T(test_empty_file),
		T(test_missing_file),
		T(test_long_file),
		T(test_nul_byte_refused),
		T(test_oversize_refused),
		T(test_too_many_jobs),
		T(test_echo_cut_and_escaped),
	};
	const size_t nothers = sizeof(others) / sizeof(others[0]);
	struct CMUnitTest tests[NCASES + nothers];

	/* A test a case, named after it, the case its initial state. */
	for (size_t i = 0; i < NCASES; i++)
		tests[i] = (struct CMUnitTest){ cases[i].name, test_case, setup,
						teardown, (void *)&cases[i] };
	memcpy(tests + NCASES, others, sizeof(others));
	return _cmocka_run_group_tests("tests", tests, NCASES + nothers,
				       NULL, NULL);
}
