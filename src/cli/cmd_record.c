// SPDX-License-Identifier: GPL-2.0
/* iolens record: its options; the recording is record/. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "record/record.h"
#include "record/ring.h"
#include "trace/block_trace.h"

#define OPTS struct record_opts

enum { OPT_STACKS = CLI_LONG, OPT_RING, OPT_RING_MAX, OPT_AFTER, OPT_TRIGGER,
       OPT_MAX_FILES, OPT_MAX_BYTES };

/* The ring's memory at least: a chunk being filled and one sealed. */
#define RING_MIN (4 * RING_CHUNK)

static int ring_size(const char *arg, __u64 *v, const char *opt, const char *cmd)
{
	if (parse_size(arg, v))
		return usage_err(cmd, "bad %s '%s': a size, as 64MiB or 1g", opt, arg);
	if (*v < RING_MIN)
		return usage_err(cmd, "%s %s is too small: at least %dKiB", opt, arg,
				 RING_MIN / 1024);
	return 0;
}

/* --ring 10s keeps a span, --ring 64MiB a size; "10m" would be either
 * (fio reads minutes in a time, MiB in a size), so it is refused. */
static int set_ring(void *obj, const char *arg, const char *cmd)
{
	struct record_opts *o = obj;
	size_t n = strlen(arg);

	o->ring = true;
	if (n > 1 && arg[n - 1] == 'm' && arg[n - 2] >= '0' && arg[n - 2] <= '9')
		return usage_err(cmd, "--ring %s: give 10min for a time or 10MiB for a size", arg);
	if ((n && strchr("sShHdD", arg[n - 1])) || (n > 3 && !strcmp(arg + n - 3, "min"))) {
		if (parse_duration(arg, 1e9, &o->ring_ns) || !o->ring_ns)
			return usage_err(cmd, "bad --ring '%s': a time (10s, 2min) or a size (64MiB)", arg);
		return 0;
	}
	o->ring_ns = 0;
	return ring_size(arg, &o->ring_size, "--ring", cmd);
}

static int set_ring_max(void *at, const char *arg, const char *cmd)
{
	return ring_size(arg, at, "--ring-max", cmd);
}

static int set_max_bytes(void *at, const char *arg, const char *cmd)
{
	if (parse_size(arg, at) || !*(__u64 *)at)
		return usage_err(cmd, "bad --max-bytes '%s': a size, as 1GiB", arg);
	return 0;
}

/* "lat>50ms": a row of the trigger table and its threshold. */
static int add_trigger(void *at, const char *arg, const char *cmd)
{
	struct trigger_spec *t = at;
	const char *gt = strchr(arg, '>'), *v = gt ? gt + 1 : NULL;
	const struct trigger_kind *k = NULL;
	unsigned long n;
	double pct;
	char *end;

	for (unsigned int i = 0; gt && !k && i < trigger_nkinds; i++)
		if (strlen(trigger_kinds[i].name) == (size_t)(gt - arg) &&
		    !strncmp(arg, trigger_kinds[i].name, gt - arg))
			k = &trigger_kinds[t->kind = i];
	if (!k)
		return usage_err(cmd, "bad trigger '%s': give NAME>VALUE, NAME one of lat, p99, errors, qd, util", arg);
	switch (k->unit) {
	case TRIGGER_TIME:
		/* A bare number is in ms, as latencies are thought of. */
		if (parse_duration(v, 1e6, &t->over))
			return usage_err(cmd, "%s takes a time (50ms, 2s, 800us), not '%s'", k->name, v);
		break;
	case TRIGGER_COUNT:
		if (!strcmp(v, "0"))
			n = 0;
		else if (parse_count(v, &n))
			return usage_err(cmd, "%s takes a count (0, 1, 32...), not '%s'", k->name, v);
		t->over = n;
		break;
	case TRIGGER_PERCENT:
		pct = strtod(v, &end);
		/* Negated, so that NaN is refused too. */
		if (end == v || (*end && strcmp(end, "%")) || !(pct >= 0 && pct < 100))
			return usage_err(cmd, "%s takes a percentage below 100, not '%s'", k->name, v);
		t->over = pct * 1000 + 0.5;
		break;
	}
	return 0;
}

/* The triggers, from their table (record --help, the man page). */
static void trigger_help(FILE *f)
{
	static const char *const arg[] = {
		[TRIGGER_TIME] = "TIME", [TRIGGER_COUNT] = "N", [TRIGGER_PERCENT] = "PCT",
	};
	char name[24];

	fputs("triggers (--trigger NAME>VALUE; TIME as 50ms, 2s, 800us, a bare number in ms):\n", f);
	for (unsigned int i = 0; i < trigger_nkinds; i++) {
		snprintf(name, sizeof(name), "%s>%s", trigger_kinds[i].name,
			 arg[trigger_kinds[i].unit]);
		fprintf(f, "  %-12s %s\n", name, trigger_kinds[i].help);
	}
	fputs("  SIGUSR1      at once (kill -USR1 PID)\n", f);
}

/* The options only --ring takes: their bits in ring_opts_given. */
#define RING_OPT_BIT(key)	(1U << ((key) - OPT_RING))

static void ring_opt_given(void *obj, int key, const char *arg __attribute__((unused)))
{
	((struct record_opts *)obj)->ring_opts_given |= RING_OPT_BIT(key);
}

static const struct cli_opt ring_opts[] = {
	CLI_OPT(OPT_TRIGGER, "trigger", "NAME>VALUE", "save the ring when this happens (below); repeatable.\nSIGUSR1 saves it at once",
		CLI_LIST_OF(OPTS, trig, ntrig, add_trigger, "at most %u triggers", sizeof(struct trigger_spec))),
	CLI_OPT(OPT_AFTER, "after", "TIME", "and go on saving for TIME past the trigger (default 5s)",
		CLI_TIME_OR_0(OPTS, after_ns, "bad --after '%s': a time, as 5s or 500ms")),
	CLI_OPT(OPT_RING_MAX, "ring-max", "SIZE", "the ring's memory at most with --ring TIME\n(default 256MiB): past it, it holds less time",
		CLI_CALL(OPTS, ring_bytes, set_ring_max)),
	CLI_OPT(OPT_MAX_FILES, "max-files", "N", "end after saving N files (default 10)",
		CLI_COUNT(OPTS, max_files, "bad --max-files '%s': a whole number")),
	CLI_OPT(OPT_MAX_BYTES, "max-bytes", "SIZE", "end once the files saved reach SIZE (default 1GiB)",
		CLI_CALL(OPTS, max_bytes, set_max_bytes)),
	CLI_END,
};

static const struct cli_opt opts[] = {
	CLI_OPT('o', "output", "FILE", "trace file to write (required; replaced if it exists)",
		CLI_STRING(OPTS, path)),
	CLI_OPT_DURATION(CLI_TIME(OPTS, duration_ns, "bad duration '%s': seconds, e.g. 10 or 0.5 or 500ms")),
	CLI_GROUP_AT(cli_rqfilter_opts, OPTS, filter, struct rqfilter),
	CLI_OPT(OPT_STACKS, "stacks", NULL, "with each request's submitting kernel stack",
		CLI_BOOL(OPTS, stacks)),
	CLI_OPT('F', "files", NULL, "with the file each request's data belongs to, and\nits path", CLI_BOOL(OPTS, files)),
	CLI_SECTION("flight recorder"),
	CLI_OPT(OPT_RING, "ring", "TIME|SIZE", "keep the last TIME (10s) or SIZE (64MiB) of requests in\nmemory, and write them only when a trigger fires:\nto FILE-DATE-TIME.iol, FILE a prefix",
		CLI_CALL_ALL(set_ring)),
	{ .group = ring_opts, .seen = ring_opt_given },
	CLI_END,
};

static int check_output(void *obj, const char *cmd)
{
	struct record_opts *o = obj;
	struct stat st;

	if (!o->path || !*o->path)
		return usage_err(cmd, "no output file: give -o FILE");
	for (const struct cli_opt *r = ring_opts; !o->ring && r->name; r++)
		if (o->ring_opts_given & RING_OPT_BIT(r->key))
			return usage_err(cmd, "--%s goes with --ring (the flight recorder)", r->name);
	for (__u32 i = 0; i < o->ntrig; i++)
		for (__u32 j = 0; j < i; j++)
			if (o->trig[i].kind == o->trig[j].kind)
				return usage_err(cmd, "--trigger %s given twice: one threshold each",
						 trigger_kinds[o->trig[i].kind].name);
	if (o->ring_size) {
		if (o->ring_opts_given & RING_OPT_BIT(OPT_RING_MAX))
			return usage_err(cmd, "--ring-max goes with --ring TIME: --ring SIZE is the ring's size");
		o->ring_bytes = o->ring_size;
	}
	if (o->ring) {
		/* Known now, not at the incident: where the files go. */
		char *dir = strdup(o->path), *slash = strrchr(dir, '/');
		const char *d = slash ? (slash == dir ? "/" : (*slash = 0, dir)) : ".";
		int bad = stat(d, &st) || !S_ISDIR(st.st_mode) || access(d, W_OK);

		if (bad)
			usage_err(cmd, "--ring saves its files as %s-TIME.iol, but '%s' is not a directory it can write", o->path, d);
		free(dir);
		return bad ? 2 : cli_pids_live(cmd, o->filter.pid, o->filter.npid);
	}
	/* Never replace something that is not a plain file (a device!). */
	if (!stat(o->path, &st) && !S_ISREG(st.st_mode))
		return usage_err(cmd, "'%s' exists and is not a regular file", o->path);
	return cli_pids_live(cmd, o->filter.pid, o->filter.npid);
}

CLI_COMMAND_MAIN(record, .ring_bytes = RECORD_RING_MAX_DEFAULT,
		 .after_ns = RECORD_AFTER_DEFAULT, .max_files = RECORD_FILES_DEFAULT,
		 .max_bytes = RECORD_BYTES_DEFAULT) = {
	.name = "record",
	.usage = "usage: iolens record -o FILE [options]\n"
		 "       iolens record --ring TIME|SIZE --trigger NAME>VALUE -o PREFIX [options]\n",
	.about =
		"Write every completed block request to FILE (gzip-compressed, with\n"
		"host, kernel, time base and each disk's block sizes), until Ctrl-C,\n"
		"SIGTERM (SIGHUP and any other signal that would end it) or\n"
		"--duration.  Read it with 'iolens report FILE'.\n"
		"With --ring, a flight recorder: keep the last requests in memory,\n"
		"and save them, and what follows for --after, to a new file each time\n"
		"a trigger fires (the file says which, when and on what value).\n",
	.opts = opts,
	.more =
		"examples:\n"
		"  iolens record -o boot.iol -D 30\n"
		"  iolens record -o db.iol -d nvme0n1 -c postgres\n"
		"  iolens report -f perfetto db.iol > db.json   # open in ui.perfetto.dev\n"
		"  iolens record --ring 60s --trigger 'lat>50ms' --trigger 'errors>0' \\\n"
		"                -o /var/log/iolens/spike\n",
	.fields = trigger_help,
	.finish = check_output,
	.summary = "write every block request to a compressed trace file",
	.order = 50,
	.uses = TRACE_USES({ .rings = 1 },
			   { .options = "--stacks", .rings = 1, .block_flags = BLOCK_TRACE_STACKS },
			   { .options = "--files", .rings = 1, .block_flags = BLOCK_TRACE_FILES }),
};
