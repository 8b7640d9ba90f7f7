// SPDX-License-Identifier: GPL-2.0
/* The option tables of the commands (cli/optable.c) and the options
 * several commands share (cli/filters.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/filters.h"
#include "cli/optable.h"
#include "lib/log.h"
#include "trace/agg_trace.h"

enum { OPT_LONG_ONLY = CLI_LONG };

static const struct cli_opt group[] = {
	CLI_OPT('g', "group-opt", "G", "from a shared table"),
	CLI_END,
};

static const struct cli_opt opts[] = {
	CLI_SECTION("what"),
	CLI_OPT('a', "alpha", NULL, "a flag"),
	CLI_OPT('b', "beta", "N", "takes a value; a help text of more words than the room\n"
		"beside the option has, flowed to 80 columns whatever its newlines"),
	CLI_SECTION("more"),
	CLI_OPT(OPT_LONG_ONLY, "long-only", "X", "no short form"),
	CLI_GROUP(group),
	CLI_NOTE("a note under it"),
	CLI_END,
};

static const struct cli_cmd cmd = {
	.name = "t",
	.usage = "usage: iolens t [OPTIONS] [INTERVAL]\n",
	.about = "About it.\n",
	.opts = opts,
	.more = "examples:\n  iolens t -a\n",
	.numbers = true,
};

/* Parses argv (NULL-terminated) and writes the keys and values seen into
 * `out` as "key=value " words; returns cli_next()'s last answer. */
static int parse(char **argv, char *out, size_t len)
{
	struct cli_parser p;
	size_t n = 0;
	int argc = 0, c;

	while (argv[argc])
		argc++;
	out[0] = '\0';
	cli_begin(&p, &cmd, argc, argv);
	while ((c = cli_next(&p)) > 0)
		n += snprintf(out + n, len - n, "%d=%s ", c, optarg ? optarg : "");
	return c;
}

static void test_parse_by_table(void **state)
{
	char *argv[] = { "t", "-a", "--beta=3", "-b", "4", "--long-only", "x",
			 "-gy", "--group-opt", "z", "rest", NULL };
	char out[256], want[256];

	(void)state;
	assert_int_equal(parse(argv, out, sizeof(out)), CLI_DONE);
	snprintf(want, sizeof(want), "%d= %d=3 %d=4 %d=x %d=y %d=z ", 'a', 'b',
		 'b', OPT_LONG_ONLY, 'g', 'g');
	assert_string_equal(out, want);
	assert_int_equal(optind, 10);
	assert_string_equal(argv[optind], "rest");
}

static void test_parse_errors(void **state)
{
	char *unknown[] = { "t", "-z", NULL };
	char *unknown_long[] = { "t", "--zeta", NULL };
	char *no_value[] = { "t", "-a", "--beta", NULL };
	/* Long-only: no short letter was made for it. */
	char *no_short[] = { "t", "-\x01", NULL };
	char *value_to_flag[] = { "t", "--alpha=1", NULL };
	char *negative[] = { "t", "-a", "-1", NULL };
	char out[256];

	(void)state;
	assert_int_equal(parse(unknown, out, sizeof(out)), CLI_ERR);
	assert_int_equal(parse(unknown_long, out, sizeof(out)), CLI_ERR);
	assert_int_equal(parse(no_value, out, sizeof(out)), CLI_ERR);
	assert_int_equal(parse(no_short, out, sizeof(out)), CLI_ERR);
	assert_int_equal(parse(value_to_flag, out, sizeof(out)), CLI_ERR);
	assert_int_equal(parse(negative, out, sizeof(out)), CLI_ERR);
	assert_int_equal(cli_exit(CLI_ERR), 2);
	assert_int_equal(cli_exit(CLI_HELP), 0);
}

static void test_operands(void **state)
{
	char *none[] = { "t", "-a", NULL };
	char *one[] = { "t", "-a", "x", NULL };
	struct cli_parser p;

	(void)state;
	cli_begin(&p, &cmd, 2, none);
	while (cli_next(&p) > 0)
		;
	assert_int_equal(cli_no_operands(&p), 0);
	cli_begin(&p, &cmd, 3, one);
	while (cli_next(&p) > 0)
		;
	assert_int_equal(cli_no_operands(&p), 2);
}

/* The help is the table: headings, rows aligned on the longest, notes and
 * continuation lines under the text, -h last. */
static void test_help_text(void **state)
{
	static const char want[] =
		"usage: iolens t [OPTIONS] [INTERVAL]\n"
		"\n"
		"About it.\n"
		"\n"
		"what:\n"
		"  -a, --alpha        a flag\n"
		"  -b, --beta N       takes a value; a help text of more words than the room\n"
		"                     beside the option has, flowed to 80 columns whatever its\n"
		"                     newlines\n"
		"more:\n"
		"      --long-only X  no short form\n"
		"  -g, --group-opt G  from a shared table\n"
		"                     a note under it\n"
		"  -h, --help         this help\n"
		"\n"
		"examples:\n"
		"  iolens t -a\n";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	cli_help(f, &cmd);
	fclose(f);
	assert_string_equal(buf, want);
	free(buf);
}

/* bench reads its own flags before load's: by the same table. */
static void test_match(void **state)
{
	(void)state;
	assert_int_equal(cli_match(&cmd, "-a"), 'a');
	assert_int_equal(cli_match(&cmd, "--alpha"), 'a');
	assert_int_equal(cli_match(&cmd, "-h"), 'h');
	assert_int_equal(cli_match(&cmd, "--help"), 'h');
	/* Options that take a value, prefixes and operands are not. */
	assert_int_equal(cli_match(&cmd, "-b"), 0);
	assert_int_equal(cli_match(&cmd, "--beta"), 0);
	assert_int_equal(cli_match(&cmd, "--alp"), 0);
	assert_int_equal(cli_match(&cmd, "-ab"), 0);
	assert_int_equal(cli_match(&cmd, "a"), 0);
	assert_int_equal(cli_match(&cmd, "--name=x"), 0);
}

/* [INTERVAL [COUNT]] after the options. */
static void test_interval_count(void **state)
{
	char *argv[] = { "stat", "2", "5", NULL };
	char *one[] = { "stat", "250ms", NULL };
	char *none[] = { "stat", NULL };
	unsigned long long ns = 7;
	unsigned long count = 9;

	(void)state;
	optind = 1;
	assert_int_equal(cli_interval_count("stat", 3, argv, &ns, &count), 0);
	assert_int_equal(ns, 2000000000ULL);
	assert_int_equal(count, 5);
	assert_int_equal(optind, 3);

	count = 9;
	optind = 1;
	assert_int_equal(cli_interval_count("stat", 2, one, &ns, &count), 0);
	assert_int_equal(ns, 250000000ULL);
	assert_int_equal(count, 9);

	/* Absent: both left as they were. */
	ns = 7;
	optind = 1;
	assert_int_equal(cli_interval_count("stat", 1, none, &ns, &count), 0);
	assert_int_equal(ns, 7);
	assert_int_equal(count, 9);

	/* optind past the options: "-x 1" already taken by getopt. */
	{
		char *after[] = { "stat", "-x", "0.5", "1", NULL };

		optind = 2;
		assert_int_equal(cli_interval_count("stat", 4, after, &ns, &count), 0);
		assert_int_equal(ns, 500000000ULL);
		assert_int_equal(count, 1);
	}
}

static void test_interval_bad(void **state)
{
	static const char *const bad[] = {
		"0", "0s", "-1", "abc", "inf", "nan", "", "1e30", "0.0000000001",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "stat", (char *)bad[i], NULL };
		unsigned long long ns = 7;
		unsigned long count = 9;

		optind = 1;
		assert_int_equal(cli_interval_count("stat", 2, argv, &ns, &count), 2);
		assert_int_equal(ns, 7);
		assert_int_equal(count, 9);
	}
}

static void test_count_bad(void **state)
{
	static const char *const bad[] = {
		"0", "-1", "-0", "3x", "x", "", "1.5", "99999999999999999999999",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "stat", "1", (char *)bad[i], NULL };
		unsigned long long ns = 7;
		unsigned long count = 9;

		optind = 1;
		assert_int_equal(cli_interval_count("stat", 3, argv, &ns, &count), 2);
	}
}

static void test_extra_argument(void **state)
{
	char *argv[] = { "stat", "1", "2", "3", NULL };
	unsigned long long ns;
	unsigned long count;

	(void)state;
	optind = 1;
	assert_int_equal(cli_interval_count("stat", 4, argv, &ns, &count), 2);
}

/* One option of the aggregating commands' process filter, by its row. */
static int proc_set(struct iolens_proc_filter *f, int key, const char *arg)
{
	return cli_set(cli_proc_opts, f, "stat", key, arg);
}

/* --pid takes a live process id; --comm 1 to 15 characters. */
static void test_proc_opts(void **state)
{
	struct iolens_proc_filter f;
	char pid[16], comm[IOLENS_COMM_LEN + 1];

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_false(stat_proc_filter_set(&f));
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	assert_int_equal(proc_set(&f, CLI_PROC_PID, pid), 1);
	assert_int_equal(f.npid, 1);
	assert_int_equal(f.pid[0], (__u32)getpid());
	assert_true(stat_proc_filter_set(&f));

	assert_int_equal(proc_set(&f, CLI_PROC_PID, "0"), 2);
	assert_int_equal(proc_set(&f, CLI_PROC_PID, "-5"), 2);
	assert_int_equal(proc_set(&f, CLI_PROC_PID, ""), 2);
	assert_int_equal(proc_set(&f, CLI_PROC_PID, "12x"), 2);
	assert_int_equal(proc_set(&f, CLI_PROC_PID, "2147483648"), 2);
	/* Above any pid_max: no such process. */
	assert_int_equal(proc_set(&f, CLI_PROC_PID, "2147483647"), 2);
	assert_int_equal(f.npid, 1);
	for (int i = 1; i < IOLENS_MAX_PID_FILTER; i++)
		assert_int_equal(proc_set(&f, CLI_PROC_PID, pid), 1);
	assert_int_equal(f.npid, IOLENS_MAX_PID_FILTER);
	assert_int_equal(proc_set(&f, CLI_PROC_PID, pid), 2);
	assert_int_equal(f.npid, IOLENS_MAX_PID_FILTER);

	memset(&f, 0, sizeof(f));
	assert_int_equal(proc_set(&f, CLI_PROC_COMM, ""), 2);
	memset(comm, 'c', IOLENS_COMM_LEN);
	comm[IOLENS_COMM_LEN] = '\0';
	assert_int_equal(proc_set(&f, CLI_PROC_COMM, comm), 2);
	assert_false(stat_proc_filter_set(&f));
	comm[IOLENS_COMM_LEN - 1] = '\0';
	assert_int_equal(proc_set(&f, CLI_PROC_COMM, comm), 1);
	assert_string_equal(f.comm, comm);
	assert_true(stat_proc_filter_set(&f));
	assert_int_equal(proc_set(&f, CLI_PROC_COMM, "fio"), 1);
	assert_string_equal(f.comm, "fio");

	/* Not one of its options. */
	assert_int_equal(proc_set(&f, 'p', "1"), 0);
	assert_int_equal(proc_set(&f, CLI_PROC_CGROUP + 1, "1"), 0);
}

/* cli_parse(): each row's value into its field, the operands, the
 * command's finish, and the exit codes. */
struct bound {
	bool flag;
	int mode;
	unsigned int bits;
	const char *name;
	__u64 ns;
	unsigned long count;
	unsigned long long every;
	__u32 pids[2];
	int npid;
	struct iolens_proc_filter proc;
	int seen;
	const char *rest;
	bool finished;
};

#define OPTS struct bound

static int set_name_upper(void *at, const char *arg, const char *cmd)
{
	if (arg[0] < 'A' || arg[0] > 'Z')
		return usage_err(cmd, "-s wants a capital, not '%s'", arg);
	*(const char **)at = arg;
	return 0;
}

static void count_seen(void *obj, int key, const char *arg)
{
	(void)key;
	(void)arg;
	((struct bound *)obj)->seen++;
}

static int take_rest(void *at, int argc, char **argv, const char *cmd)
{
	(void)cmd;
	if (optind < argc)
		*(const char **)at = argv[optind];
	return 0;
}

static int finish(void *obj, const char *cmd)
{
	struct bound *b = obj;

	if (b->mode == 9)
		return usage_err(cmd, "mode 9 wants a name");
	b->finished = true;
	return 0;
}

static const struct cli_opt bound_opts[] = {
	CLI_OPT('f', "flag", NULL, "a flag", CLI_BOOL(OPTS, flag)),
	CLI_OPT('m', "mode", NULL, "mode 9", CLI_INT(OPTS, mode, 9)),
	CLI_OPT('x', "x", NULL, "bit 0", CLI_BITS(OPTS, bits, 1)),
	CLI_OPT('y', "y", NULL, "bits 1, 2", CLI_BITS(OPTS, bits, 6)),
	CLI_OPT('s', "name", "S", "a name", CLI_CALL(OPTS, name, set_name_upper)),
	CLI_OPT('D', "duration", "T", "a time", CLI_TIME(OPTS, ns, "bad time '%s'")),
	CLI_OPT('n', "count", "N", "a count", CLI_COUNT(OPTS, count, "bad count '%s'")),
	CLI_OPT('i', "every", "T", "an interval", CLI_INTERVAL(OPTS, every)),
	CLI_OPT('p', "live", "PID", "a live pid", CLI_PIDS(OPTS, pids, npid)),
	CLI_GROUP_AT(cli_proc_opts, OPTS, proc, struct iolens_proc_filter, .seen = count_seen),
	CLI_END,
};

static const struct cli_cmd bound_cmd = {
	.name = "b",
	.usage = "usage: iolens b\n",
	.about = "Bound.\n",
	.opts = bound_opts,
	.operands = take_rest,
	.operands_at = offsetof(OPTS, rest),
	.finish = finish,
};

static int parse_bound(struct bound *b, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	memset(b, 0, sizeof(*b));
	return cli_parse(&bound_cmd, b, argc, argv);
}

static void test_bound(void **state)
{
	char pid[16];
	char *argv[] = { "b", "-f", "-x", "-y", "-s", "Sda", "-D", "1.5", "-n", "3",
			 "-i", "250ms", "-p", pid, "--pid", pid, "--comm", "fio", "rest", NULL };
	char *mode[] = { "b", "-m", NULL };
	char *help[] = { "b", "--help", NULL };
	char *bad[][4] = {
		{ "b", "-s", "sda", NULL }, { "b", "-D", "0", NULL },
		{ "b", "-n", "0", NULL }, { "b", "-i", "1ms", NULL },
		{ "b", "-p", "x", NULL }, { "b", "--comm", "", NULL },
		{ "b", "-q", NULL },
	};
	struct bound b;

	(void)state;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	assert_int_equal(parse_bound(&b, argv), CLI_RUN);
	assert_true(b.flag);
	assert_int_equal(b.mode, 0);
	assert_int_equal(b.bits, 7);
	assert_string_equal(b.name, "Sda");
	assert_int_equal(b.ns, 1500000000ULL);
	assert_int_equal(b.count, 3);
	assert_int_equal(b.every, 250000000ULL);
	assert_int_equal(b.npid, 1);
	assert_int_equal(b.pids[0], (__u32)getpid());
	assert_int_equal(b.proc.npid, 1);
	assert_string_equal(b.proc.comm, "fio");
	assert_int_equal(b.seen, 2);
	assert_string_equal(b.rest, "rest");
	assert_true(b.finished);

	/* The finish sees the whole: a usage error there is one too. */
	assert_int_equal(parse_bound(&b, mode), 2);
	assert_false(b.finished);
	assert_int_equal(parse_bound(&b, help), 0);
	assert_false(b.finished);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_bound(&b, bad[i]), 2);
}

/* bench's way: flags up to the first argument that is not one of them,
 * the rest for another parser. */
static void test_leading(void **state)
{
	static const struct cli_cmd leading = {
		.name = "b",
		.usage = "usage: iolens b\n",
		.about = "Bound.\n",
		.opts = bound_opts,
		.leading = true,
		.operands = take_rest,
		.operands_at = offsetof(OPTS, rest),
	};
	char *argv[] = { "b", "-f", "--x", "-n", "3", NULL };
	char *help[] = { "b", "-f", "-h", "--x", NULL };
	struct bound b = {};

	(void)state;
	assert_int_equal(cli_parse(&leading, &b, 5, argv), CLI_RUN);
	assert_true(b.flag);
	assert_int_equal(b.bits, 1);
	/* -n takes a value: not one of the leading flags. */
	assert_int_equal(b.count, 0);
	assert_string_equal(b.rest, "-n");
	assert_int_equal(cli_parse(&leading, &b, 4, help), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_by_table),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_operands),
		cmocka_unit_test(test_help_text),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_interval_count),
		cmocka_unit_test(test_interval_bad),
		cmocka_unit_test(test_count_bad),
		cmocka_unit_test(test_extra_argument),
		cmocka_unit_test(test_proc_opts),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_leading),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
