/* SPDX-License-Identifier: GPL-2.0 */
/* Options several commands share: their table rows beside their parsers. */
#ifndef IOLENS_CLI_FILTERS_H
#define IOLENS_CLI_FILTERS_H

#include <linux/types.h>
#include "bpf/agg.h"
#include "cli/optable.h"
#include "trace/agg_loop.h"
#include "trace/rqfilter.h"

/* -d -p -c -G -O -m of snoop, record, report and attach, into a struct
 * rqfilter (CLI_GROUP_AT()).  Devices are kept as given and matched by
 * name or number, so report can filter a file recorded on another
 * machine. */
extern const struct cli_opt cli_rqfilter_opts[];

/* A word of a list option (stat's and lat's --by): the bool of the
 * command's options it sets, and what it gives, for the error. */
struct cli_word {
	const char *name;
	size_t at;		/* offsetof the bool */
	const char *what;
};

/* Sets the bools of the comma-separated words of `arg` in `opts`: 0, or a
 * usage error naming the bad word and listing the words (exit code 2). */
int cli_set_words(void *opts, const char *arg, const struct cli_word *words,
		  const char *cmd, const char *opt);

/* --pid, --comm and --cgroup of the aggregating commands (stat, lat), into
 * a struct iolens_proc_filter. */
enum { CLI_PROC_PID = CLI_LONG + 0x80, CLI_PROC_COMM, CLI_PROC_CGROUP, CLI_OWN_CLOCK };
extern const struct cli_opt cli_proc_opts[];

/* The rows of the options of every aggregating command, whose struct T
 * has its struct agg_cmd_opts in `a`: -d, the process filter, and
 * --own-clock. */
#define CLI_AGG_DEV(T)		CLI_OPT_DEV(CLI_DISKS(T, a.devs, a.ndev))
#define CLI_AGG_PROC(T) \
	CLI_GROUP_AT(cli_proc_opts, T, a.proc, struct iolens_proc_filter)
#define CLI_AGG_OWN_CLOCK(T) \
	CLI_OPT(CLI_OWN_CLOCK, "own-clock", NULL, "stamp issues with iolens's clock on every queue\n(the kernel's stamp is cached per plug)", \
		CLI_BOOL(T, a.own_clock))

/* The operands of the aggregating commands, INTERVAL [COUNT], into the
 * struct agg_cmd_opts at `a` (a struct cli_cmd's operands). */
int cli_agg_operands(void *a, int argc, char **argv, const char *cmd);

/* The fields of the struct cli_cmd of an aggregating command, whose
 * struct T has its struct agg_cmd_opts in `a`, for those operands. */
#define CLI_AGG_OPERANDS(T) \
	.numbers = true, .operands = cli_agg_operands, \
	.operands_at = CLI_FIELD(T, a, struct agg_cmd_opts)

/* The -d option of every command that takes one; what it sets follows
 * (CLI_DISKS(), cli_disk()). */
#define CLI_OPT_DEV(...) \
	CLI_OPT('d', "dev", "DEV", "only this disk or partition (loop0, /dev/loop0p1, 7:0); repeatable", __VA_ARGS__)

/* The -D option of the commands that trace until told to stop; what it
 * sets follows (CLI_TIME()). */
#define CLI_OPT_DURATION(...) \
	CLI_OPT('D', "duration", "TIME", "stop after TIME (seconds; or 500ms)", __VA_ARGS__)

/* Adds the disk or partition named `s` to devs[*ndev] (at most
 * IOLENS_MAX_DEV_FILTER): 0, or 2 after one line. */
int cli_disk(const char *cmd, const char *s, unsigned int *devs, int *ndev);

/* Processes a live command is asked to follow must exist: 0, or 2 after
 * one line naming the first that does not.  (report filters recorded
 * pids, long gone.) */
int cli_pids_live(const char *cmd, const __u32 *pids, int n);

/* A process id that is alive, into the __u32 at `at` (CLI_PIDS()). */
int cli_live_pid(void *at, const char *arg, const char *cmd);

/* What --pid sets: one more live process into 32-bit array f of T,
 * counted by cnt. */
#define CLI_PIDS(T, f, cnt) \
	CLI_LIST_OF(T, f, cnt, cli_live_pid, "at most %u --pid", sizeof(__u32))

/* Report intervals, in every command that takes one: below 10 ms the
 * reports cost more than they show, and a week is past any use. */
#define CLI_INTERVAL_MIN_NS	10000000ULL
#define CLI_INTERVAL_MAX_NS	(7 * 86400ULL * 1000000000ULL)

/* Parses an interval `arg` of option `what` ("interval", "-d") into *ns:
 * 0, or 2 after one line naming the accepted range. */
int cli_interval(const char *cmd, const char *what, const char *arg, __u64 *ns);

/* The trailing "[INTERVAL [COUNT]]" from argv[optind] on: INTERVAL in
 * seconds or with a unit, COUNT a positive whole number; absent ones are
 * left as they were.  0, or 2 after one line. */
int cli_interval_count(const char *cmd, int argc, char **argv,
		       unsigned long long *interval_ns, unsigned long *count);

#endif
