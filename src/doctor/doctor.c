// SPDX-License-Identifier: GPL-2.0
/* The rows of iolens doctor, and their text and JSON. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "doctor/doctor.h"
#include "lib/json.h"

const char *const doctor_status_name[] = {
	[ST_OK]		= "ok",
	[ST_MISSING]	= "missing",
	[ST_FALLBACK]	= "fallback",
	[ST_NOPRIV]	= "no-privilege",
};

const char *const doctor_verdict_name[] = {
	[V_OK] = "ok", [V_DEGRADED] = "degraded", [V_CANNOT] = "cannot run",
};

const char *doctor_errno(int err)
{
	static char buf[24];
	const char *s = strerrorname_np(err);

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

struct row *doctor_row(struct doctor *d, const char *check,
		       enum status st, const char *consequence,
			   const char *fmt, ...)
{
	static struct row overflow;
	struct row *r;
	va_list ap;

	/* The check list is fixed, so overflowing is a bug here: keep going
	 * on a scratch row rather than crash a diagnostic tool. */
	r = d->nrows < MAX_ROWS ? &d->rows[d->nrows++] : &overflow;
	snprintf(r->check, sizeof(r->check), "%s", check);
	r->status = st;
	snprintf(r->consequence, sizeof(r->consequence), "%s", consequence);
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
	return r;
}

void doctor_block(struct doctor *d, const char *why)
{
	if (d->nblockers < MAX_BLOCKERS)
		d->blockers[d->nblockers++] = why;
}

bool doctor_path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

void doctor_print_text(const struct doctor *d)
{
	int wc = strlen("CHECK"), ws = strlen("STATUS"), wd = strlen("DETAIL");
	int i;

	for (i = 0; i < d->nrows; i++) {
		const struct row *r = &d->rows[i];
		int n;

		n = strlen(r->check);
		wc = n > wc ? n : wc;
		n = strlen(doctor_status_name[r->status]);
		ws = n > ws ? n : ws;
		n = strlen(r->detail);
		wd = n > wd ? n : wd;
	}
	printf("%-*s  %-*s  %-*s  %s\n", wc, "CHECK", ws, "STATUS", wd,
	       "DETAIL", "CONSEQUENCE");
	for (i = 0; i < d->nrows; i++) {
		const struct row *r = &d->rows[i];

		printf("%-*s  %-*s  %-*s  %s\n", wc, r->check, ws,
		       doctor_status_name[r->status], wd, r->detail, r->consequence);
	}
	/* What the hooks above allow each command on this kernel. */
	printf("\ncommands on this kernel:\n");
	for (i = 0; i < d->ncmds; i++)
		printf("  %-7s %-10s %s\n", d->cmds[i].name,
		       doctor_verdict_name[d->cmds[i].verdict], d->cmds[i].why);
	putchar('\n');
	if (d->nblockers) {
		printf("snoop/record: cannot run:");
		for (i = 0; i < d->nblockers; i++)
			printf("%s %s", i ? "," : "", d->blockers[i]);
		putchar('\n');
	} else if ((d->unprobed || !d->may_load) && geteuid()) {
		printf("snoop/record: needs root (or CAP_BPF and CAP_PERFMON); "
		       "rerun as root (sudo iolens doctor) for the program checks\n");
	} else if (d->unprobed || !d->may_load) {
		printf("snoop/record: this root lacks CAP_SYS_ADMIN (or CAP_BPF and CAP_PERFMON); "
		       "rerun with them for the program checks\n");
	} else {
		printf("snoop/record: ready (%s)\n", d->attach);
	}
}

void doctor_print_json(const struct doctor *d, const char *release)
{
	unsigned int count[ST_NOPRIV + 1] = { 0 };
	const char *state;
	struct json j;
	int i;

	json_init(&j, stdout);
	json_obj_open(&j, NULL);
	json_str(&j, "kernel", release);
	json_arr_open(&j, "checks");
	for (i = 0; i < d->nrows; i++) {
		const struct row *r = &d->rows[i];

		count[r->status]++;
		json_obj_open(&j, NULL);
		json_str(&j, "check", r->check);
		json_str(&j, "status", doctor_status_name[r->status]);
		json_str(&j, "detail", r->detail);
		json_str(&j, "consequence", r->consequence);
		json_obj_close(&j);
	}
	json_arr_close(&j);

	if (d->nblockers)
		state = "cannot run";
	else if (d->unprobed || !d->may_load)
		state = "unknown";
	else
		state = "ready";
	json_obj_open(&j, "summary");
	json_str(&j, "snoop_record", state);
	json_str(&j, "attach", d->attach);
	json_bool(&j, "privileged", d->may_load);
	json_arr_open(&j, "blockers");
	for (i = 0; i < d->nblockers; i++)
		json_str(&j, NULL, d->blockers[i]);
	json_arr_close(&j);
	for (i = 0; i <= ST_NOPRIV; i++)
		json_u64(&j, doctor_status_name[i], count[i]);
	json_obj_close(&j);
	json_obj_open(&j, "commands");
	for (i = 0; i < d->ncmds; i++) {
		json_obj_open(&j, d->cmds[i].name);
		json_str(&j, "verdict", doctor_verdict_name[d->cmds[i].verdict]);
		json_str(&j, "lost", d->cmds[i].why);
		json_obj_close(&j);
	}
	json_obj_close(&j);
	json_obj_close(&j);
	json_newline(&j);
}
