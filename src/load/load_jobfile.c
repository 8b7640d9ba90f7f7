// SPDX-License-Identifier: GPL-2.0
/*
 * fio job files for iolens load, read as fio 3.33 reads them:
 *
 *   - INI sections: [global] sets the defaults of the jobs after it (a
 *     section whose name starts with "global" is one, as in fio); every
 *     other section is a job named after it.
 *   - key=value, or a bare key for a flag (time_based, stonewall...);
 *     blanks around both are dropped.
 *   - ';' and '#' start a comment anywhere on a line: fio cuts the line at
 *     the first of them, so a value cannot hold one either.
 *   - Options are those of the command line, through load_opt_set(), but
 *     not those fio takes only on its command line (--output-format...).
 *   - ${NAME} takes an environment variable, as in fio (its value is
 *     never echoed: root may run another user's file); fio's other
 *     $-words and include are not supported: refused by name.
 *
 * The whole file is read and checked before anything runs; the option
 * values point into its text, which is kept for the run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <unistd.h>
#include "load/load.h"
#include "lib/log.h"
#include "lib/safepath.h"
#include "lib/sanitize.h"
#include "load/opts.h"
#include "load/buf.h"
#include "load/prio.h"
#include "load/steady.h"

#define CMD LOAD_CMD

struct load_job_opts *load_jobs_add(struct load_jobs *js)
{
	struct load_job_opts *v;

	if (js->n == LOAD_MAX_JOBS) {
		errno = E2BIG;
		return NULL;
	}
	v = realloc(js->v, (js->n + 1) * sizeof(*v));
	if (!v) {
		errno = ENOMEM;
		return NULL;
	}
	js->v = v;
	v[js->n] = js->global;
	v[js->n].ngiven = 0;	/* "job options" are the job's own */
	return &v[js->n++];
}

int load_jobs_add_failed(void)
{
	if (errno == E2BIG)
		return usage_err(CMD, "more than %d jobs: use numjobs=N for copies of one", LOAD_MAX_JOBS);
	pr_err("out of memory");
	return 1;
}

void load_jobs_free(struct load_jobs *js)
{
	free(js->v);
	for (int i = 0; i < js->ntexts; i++)
		free(js->texts[i]);
	free(js->texts);
}

/* fio 3.33's zone options once all are read: zonesize only with
 * zonemode=strided, and there needed; zonerange defaults to zonesize; -1
 * where they contradict. */
static int zones_settle(struct load_job_opts *o)
{
	if ((o->zonemode == LOAD_ZONE_NONE) != !o->zone_size)
		return -1;
	if (o->zonemode == LOAD_ZONE_STRIDED && !o->zone_range)
		o->zone_range = o->zone_size;
	return 0;
}

/* The job before js->v[i] named `name`, as fio looks up a waitee. */
static bool named_before(const struct load_jobs *js, int i, const char *name)
{
	for (int k = 0; k < i; k++) {
		if (!strcmp(js->v[k].name, name))
			return true;
	}
	return false;
}

/* Which options go together or not, in a job and with the job before it
 * in its reporting group (NULL if none): what is wrong, or NULL. */
static const char *(*const checks[])(const struct load_job_opts *o,
				     const struct load_job_opts *prev) = {
	load_prio_check,
	load_buf_check,
	load_steady_conflict,
};

/* fio's add_job(): a stonewall or new_group after some job opens a group;
 * a job waits_for one before it, as fio's (no forward references); and
 * the options that go together or not, once all of a job's are read. */
int load_jobs_group(struct load_jobs *js)
{
	char job[64], waitee[64];
	int group = 0;

	for (int i = 0; i < js->n; i++) {
		const char *w = js->v[i].wait_for, *why = NULL;
		const struct load_job_opts *prev;

		if (i && (js->v[i].stonewall || js->v[i].new_group))
			group++;
		js->v[i].groupid = group;
		prev = i && js->v[i - 1].groupid == group ? &js->v[i - 1] : NULL;
		for (size_t k = 0; k < sizeof(checks) / sizeof(checks[0]) && !why; k++)
			why = checks[k](&js->v[i], prev);
		if (w && !named_before(js, i, w))
			return usage_err(CMD, "job '%s': wait_for=%s: no job of that name before it",
					 log_excerpt(js->v[i].name, job, sizeof(job)),
					 log_excerpt(w, waitee, sizeof(waitee)));
		if (why)
			return usage_err(CMD, "job '%s': %s",
					 log_excerpt(js->v[i].name, job, sizeof(job)), why);
		if (zones_settle(&js->v[i]))
			return usage_err(CMD, "job '%s': %s",
					 log_excerpt(js->v[i].name, job, sizeof(job)),
					 js->v[i].zone_size ? "zonemode=none and zonesize do not go together"
							    : "zonemode=strided needs zonesize");
	}
	return 0;
}

/* A job file is a few kilobytes of text: this is far beyond any, and
 * keeps `iolens load /dev/zero` from reading without end. */
#define JOBFILE_MAX (1 << 20)

/* The whole file, NUL-terminated, its length in *lenp; NULL with errno
 * (EFBIG: over JOBFILE_MAX) and the reason in why.  Root runs job files
 * other users wrote: no link of theirs is followed to a file of root's,
 * and a FIFO of theirs is not waited on (lib/safepath.h). */
static char *read_all(const char *path, size_t *lenp, char *why, size_t wlen)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	int fd = safepath_open_input(path, true, why, wlen);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
	size_t n;

	if (!f || !buf) {
		int err = fd < 0 ? errno : ENOMEM;

		free(buf);
		if (f)
			fclose(f);
		else if (fd >= 0)
			close(fd);
		if (fd >= 0)
			snprintf(why, wlen, "%s", strerror(err));
		errno = err;
		return NULL;
	}
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len > JOBFILE_MAX) {
			free(buf);
			fclose(f);
			errno = EFBIG;
			return NULL;
		}
		if (len + 1 == cap) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	*lenp = len;
	return buf;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && (isspace((unsigned char)e[-1]) || iscntrl((unsigned char)e[-1])))
		e--;
	*e = '\0';
	return s;
}

/* Since fio, a file after the first starts from the defaults; what only
 * the command line sets (output format, --allow-destroy) stays. */
static void reset_global(struct load_jobs *js)
{
	struct load_job_opts old = js->global;
	const char *err;

	load_opts_init(&js->global);
	for (int i = 0; i < old.ngiven; i++) {
		if (load_opt_run_wide(old.given[i].name))
			load_opt_set(&js->global, old.given[i].name,
				     old.given[i].value, &err);
	}
}

int load_jobs_keep(struct load_jobs *js, void *s)
{
	char **texts = realloc(js->texts, (js->ntexts + 1) * sizeof(*texts));

	if (!texts) {
		free(s);
		return -1;
	}
	js->texts = texts;
	js->texts[js->ntexts++] = s;
	return 0;
}

/*
 * fio's environment variables in a value: each ${NAME} becomes the
 * variable's value, or nothing where it is not set (fio then refuses the
 * value, as iolens does).  *val is replaced by the expanded copy; 0, or
 * the exit code after one line.  fio's other $ words ($pagesize,
 * $mb_memory, $ncpus) are refused by name; filename_format's $jobname and
 * the like are its own.
 */
static int expand_env(struct load_jobs *js, const char *where, const char *key,
		      char **val)
{
	char *in = *val, *out = NULL, k[LOG_EXCERPT_LEN];
	size_t len = 0;
	FILE *f;

	if (!in || !strchr(in, '$') || !strcmp(key, "filename_format"))
		return 0;
	f = open_memstream(&out, &len);
	if (!f) {
		pr_err("out of memory");
		return 1;
	}
	while (*in) {
		char *end;

		if (in[0] != '$') {
			fputc(*in++, f);
			continue;
		}
		end = in[1] == '{' ? strchr(in + 2, '}') : NULL;
		if (!end) {
			fclose(f);
			free(out);
			return usage_err(CMD, "%s: %s: fio's $-words ($pagesize, $mb_memory, $ncpus) are not supported: write the value out; ${NAME} takes an environment variable",
					 where, log_excerpt(key, k, sizeof(k)));
		}
		*end = '\0';
		if (getenv(in + 2))
			fputs(getenv(in + 2), f);
		*end = '}';
		in = end + 1;
	}
	if (fclose(f) || load_jobs_keep(js, out)) {
		pr_err("out of memory");
		return 1;
	}
	*val = out;
	return 0;
}

static int set_option(struct load_jobs *js, struct load_job_opts *o,
		      const char *where, char *line)
{
	char *eq = strchr(line, '='), *key = line, *val = NULL, *raw;
	const char *err;
	int rc;

	if (eq) {
		*eq = '\0';
		val = trim(eq + 1);
	}
	key = trim(key);
	char k[LOG_EXCERPT_LEN], v[LOG_EXCERPT_LEN];

	if (strchr(key, '$'))
		return usage_err(CMD, "%s: %s: a $ in an option's name: write the name out",
				 where, log_excerpt(key, k, sizeof(k)));
	raw = val;
	rc = expand_env(js, where, key, &val);
	if (rc)
		return rc;
	if (!load_opt_known(key))
		return usage_err(CMD, "%s: unknown option '%s'", where,
				 log_excerpt(key, k, sizeof(k)));
	if (load_opt_cmdline_only(key))
		return usage_err(CMD, "%s: '%s' is taken only on the command line (--%s)",
				 where, key, key);
	rc = load_opt_set(o, key, val, &err);
	/* As on the command line: group_reporting of any job is the run's. */
	if (!rc && o != &js->global && load_opt_run_wide(key))
		rc = load_opt_set(&js->global, key, val, &err);
	/* What root's environment holds is not shown: the job file may be
	 * another user's. */
	if (rc && raw != val)
		return usage_err(CMD, "%s: %s=%s: %s (after ${...} from the environment, not shown)",
				 where, key, log_excerpt(raw, v, sizeof(v)), err);
	if (rc)
		return usage_err(CMD, "%s: %s%s%s: %s", where, key, val ? "=" : "",
				 val ? log_excerpt(val, v, sizeof(v)) : "", err);
	return 0;
}

int load_jobfile_read(struct load_jobs *js, const char *path, int index)
{
	struct load_job_opts *cur = NULL;
	bool first_job = true;
	char *text, *line, *next, *nul, where[1100], shown[LOG_EXCERPT_LEN], why[200];
	char named[1024];
	/* The path as messages echo it: no control byte, and not 1 MB. */
	const char *name = san_text_buf(named, sizeof(named), path);
	int lineno = 0, rc;
	size_t len;

	text = read_all(path, &len, why, sizeof(why));
	if (!text && errno == EFBIG)
		return usage_err(CMD, "%s: over %d MiB: not a job file", name, JOBFILE_MAX >> 20);
	if (!text)
		return usage_err(CMD, "%s: cannot read the job file: %s", name, why);
	/* Text ends at a NUL for the C string functions below: whatever came
	 * after it would be dropped without a word. */
	nul = memchr(text, '\0', len);
	if (nul) {
		for (char *p = text; p < nul; p++)
			lineno += *p == '\n';
		free(text);
		return usage_err(CMD, "%s:%d: a NUL byte: not a text job file", name, lineno + 1);
	}
	if (load_jobs_keep(js, text)) {
		pr_err("out of memory");
		return 1;
	}
	if (index > 0)
		reset_global(js);

	for (line = text; line; line = next) {
		char *cut;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		snprintf(where, sizeof(where), "%s:%d", name, lineno);
		/* fio's strip_blank_end(): a comment may follow anything. */
		cut = strpbrk(line, ";#");
		if (cut)
			*cut = '\0';
		line = trim(line);
		if (!*line)
			continue;
		if (*line == '[') {
			size_t len = strlen(line);

			if (len < 3 || line[len - 1] != ']')
				return usage_err(CMD, "%s: '%s' is not a section header: write [NAME]",
						 where, log_excerpt(line, shown, sizeof(shown)));
			line[len - 1] = '\0';
			line = trim(line + 1);
			if (!strncmp(line, "global", 6)) {
				cur = &js->global;
				continue;
			}
			cur = load_jobs_add(js);
			if (!cur)
				return load_jobs_add_failed();
			cur->name = line;
			/* As fio: each job file after the first starts
			 * after the jobs of those before it. */
			if (index > 0 && first_job)
				cur->stonewall = true;
			first_job = false;
			continue;
		}
		/* fio reads "include FILE" anywhere, also before any
		 * section: refused by name, not as an option. */
		if (!strncmp(line, "include", 7) &&
		    (!line[7] || isspace((unsigned char)line[7]) || line[7] == '=')) {
			char *file = trim(line + 7 + (line[7] == '='));

			if (!*file)
				return usage_err(CMD, "%s: include is not supported: copy what it names into this file",
						 where);
			return usage_err(CMD, "%s: include is not supported: copy what '%s' holds into this file",
					 where, log_excerpt(file, shown, sizeof(shown)));
		}
		if (!cur)
			return usage_err(CMD, "%s: '%s' is outside of any [section]",
					 where, log_excerpt(line, shown, sizeof(shown)));
		rc = set_option(js, cur, where, line);
		if (rc)
			return rc;
	}
	return 0;
}
