// SPDX-License-Identifier: GPL-2.0
/*
 * Files as fio makes them: a job without --filename gets nrfiles of its
 * own per thread, named by fio's filename_format under --directory, written
 * out before a job that reads it (fio's "Laying out IO file"), and
 * removed after with --unlink.  The safety rules of load_target.c hold:
 * the file is opened as any other, never through another user's link.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lib/log.h"
#include "lib/outfile.h"
#include "load/buf.h"
#include "load/engine.h"
#include "load/files.h"
#include "load/load.h"
#include "load/opts.h"
#include "load/target.h"

#define CMD LOAD_CMD

static const char default_format[] = "$jobname.$jobnum.$filenum";

/* The text of format keyword `f` points at for file `filenum` of thread
 * `jobnum`, and the keyword's length in *klen; NULL where f is not at a
 * keyword.  fio matches them in any case. */
static const char *keyword(const struct load_job_opts *o, const char *f,
			   unsigned int jobnum, unsigned int filenum, char *num,
			   size_t *klen)
{
	if (!strncasecmp(f, "$jobname", 8)) {
		*klen = 8;
		return o->name;
	}
	if (!strncasecmp(f, "$jobnum", 7)) {
		*klen = 7;
		snprintf(num, 16, "%u", jobnum);
		return num;
	}
	if (!strncasecmp(f, "$filenum", 8)) {
		*klen = 8;
		snprintf(num, 16, "%u", filenum);
		return num;
	}
	return NULL;
}

/* fio's filename_format: $jobname, $jobnum (the thread of the job) and
 * $filenum, anything else as written; under --directory.  Measured, then
 * written: a name and a format are the user's, of any length. */
static char *expand(const struct load_job_opts *o, unsigned int jobnum,
		    unsigned int filenum)
{
	const char *fmt = o->filename_format ? o->filename_format : default_format;
	size_t len = o->directory ? strlen(o->directory) + 1 : 0, klen;
	char num[16], *s, *p;
	const char *f, *k;

	for (f = fmt; *f; f += k ? klen : 1) {
		k = keyword(o, f, jobnum, filenum, num, &klen);
		len += k ? strlen(k) : 1;
	}
	s = p = malloc(len + 1);
	if (!s)
		return NULL;
	if (o->directory)
		p += sprintf(p, "%s/", o->directory);
	for (f = fmt; *f; f += k ? klen : 1) {
		k = keyword(o, f, jobnum, filenum, num, &klen);
		if (k)
			p = stpcpy(p, k);
		else
			*p++ = *f;
	}
	*p = '\0';
	return s;
}

/* fio puts --directory before a file name given too, unless absolute. */
static char *in_directory(const struct load_job_opts *o)
{
	char *s;

	if (!o->directory || !o->filename || o->filename[0] == '/')
		return o->filename;
	if (asprintf(&s, "%s/%s", o->directory, o->filename) < 0)
		return NULL;
	return s;
}

static bool needs_file(const struct load_job_opts *o)
{
	return !o->filename && !o->ioengine->diskless;
}

/* Names thread c's files: nrfiles > 1, each a job of one file of its own
 * (c->files), the first's name the job's for its messages.  0, or -1 out
 * of memory. */
static int name_files(struct load_jobs *js, struct load_job_opts *c,
		      const struct load_job_opts *o, unsigned int k)
{
	if (o->nrfiles == 1) {
		c->filename = expand(o, k, 0);
		return c->filename ? load_jobs_keep(js, c->filename) : -1;
	}
	c->files = calloc(o->nrfiles, sizeof(*c->files));
	if (!c->files || load_jobs_keep(js, c->files))
		return -1;
	for (unsigned int f = 0; f < o->nrfiles; f++) {
		struct load_job_opts *one = &c->files[f];

		*one = *c;
		one->nrfiles = 1;
		one->files = NULL;
		one->filename = expand(o, k, f);
		if (!one->filename || load_jobs_keep(js, one->filename))
			return -1;
	}
	c->filename = c->files[0].filename;
	return 0;
}

int load_files_name(struct load_jobs *js)
{
	struct load_job_opts *v;
	bool any = false;
	int n = 0;

	for (int i = 0; i < js->n; i++) {
		any |= needs_file(&js->v[i]);
		n += needs_file(&js->v[i]) ? js->v[i].numjobs : 1;
	}
	for (int i = 0; i < js->n; i++) {
		struct load_job_opts *o = &js->v[i];
		char *f = in_directory(o);

		if (f == o->filename)
			continue;
		if (!f || load_jobs_keep(js, f)) {
			pr_err("out of memory");
			return 1;
		}
		o->filename = f;
	}
	if (!any)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v) {
		pr_err("out of memory");
		return 1;
	}
	n = 0;
	for (int i = 0; i < js->n; i++) {
		const struct load_job_opts *o = &js->v[i];
		unsigned int copies = needs_file(o) ? o->numjobs : 1;

		for (unsigned int k = 0; k < copies; k++) {
			struct load_job_opts *c = &v[n++];

			*c = *o;
			if (!needs_file(o))
				continue;
			/* A thread each: its own file, in the wave and the
			 * group of the first, as fio's clones. */
			c->numjobs = 1;
			c->clone = k;
			c->stonewall = o->stonewall && !k;
			if (name_files(js, c, o, k)) {
				free(v);
				pr_err("out of memory");
				return 1;
			}
		}
	}
	free(js->v);
	js->v = v;
	js->n = n;
	return 0;
}

unsigned int load_nfiles(const struct load_job_opts *o)
{
	return o->files ? o->nrfiles : 1;
}

struct load_job_opts *load_file_opts(struct load_job_opts *o, unsigned int k)
{
	return o->files ? &o->files[k] : o;
}

int load_files_prepare(struct load_job_opts *o, struct load_target *tg)
{
	__u64 bs = load_bs_min(o), share, extra, total = 0;
	unsigned int n = load_nfiles(o);
	int rc;

	if (n == 1)
		return load_target_prepare(o, tg);
	if (o->verify) {
		fprintf(stderr, "iolens load: job '%s': --verify with nrfiles=%u: iolens verifies one file a job (--nrfiles=1)\n",
			log_name(o->name), n);
		return 2;
	}
	/* fio's setup_files: size / nrfiles each, the remainder in blocks
	 * to the first files; with filesize or no size, each file's own
	 * (filesize, or what is there), size= then at most their sum. */
	share = o->filesize ? 0 : o->size / n;
	extra = share ? (o->size - share * n) / bs : 0;
	for (unsigned int k = 0; k < n; k++) {
		struct load_job_opts *f = &o->files[k];

		f->size = share ? share + (k < extra ? bs : 0) : 0;
		rc = load_target_prepare(f, &tg[k]);
		if (rc)
			return rc;
		total += f->size;
	}
	if (!o->size || o->size > total)
		o->size = total;
	return 0;
}

/* Writes what prepare made or grew of one file (of options f). */
static int lay_out(const struct load_job_opts *f, const struct load_target *t)
{
	__u64 at = t->grown_from, left = t->grown_to - t->grown_from;
	size_t chunk = 1 << 20;
	char why[200], *buf;
	int fd, rc = 0;

	fd = outfile_open(f->filename, O_WRONLY, 0, NULL, why, sizeof(why));
	buf = malloc(chunk);
	if (fd < 0 || !buf) {
		pr_err("%s: cannot lay it out: %s", log_name(f->filename), fd < 0 ? why : "out of memory");
		goto out;
	}
	while (left) {
		size_t n = left < chunk ? left : chunk;
		ssize_t w;

		/* Neither zeros nor one chunk again: a device that compresses
		 * or deduplicates would make the job's reads cheaper than
		 * those of the user's data. */
		load_buf_random(buf, n, at * 0x9e3779b97f4a7c15ULL);
		w = pwrite(fd, buf, n, at);

		if (w <= 0) {
			pr_err("%s: cannot lay it out at offset %llu: %s", log_name(f->filename),
			       (unsigned long long)at, w < 0 ? strerror(errno) : "short write");
			rc = 1;
			break;
		}
		at += w;
		left -= w;
	}
	if (!rc && fsync(fd)) {
		pr_err("%s: cannot lay it out: fsync: %s", log_name(f->filename), strerror(errno));
		rc = 1;
	}
out:
	if (fd < 0 || !buf)
		rc = 1;
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

int load_files_layout(struct load_job_opts *o, const struct load_target *tg, FILE *out)
{
	unsigned int n = 0;
	__u64 bytes = 0;
	int rc = 0;

	if (!load_dir_used(o, LOAD_READ))
		return 0;
	/* fio's figure: the sizes of the files it lays out. */
	for (unsigned int k = 0; k < load_nfiles(o); k++) {
		if (tg[k].grown_to > tg[k].grown_from) {
			n++;
			bytes += tg[k].grown_to;
		}
	}
	if (!n)
		return 0;
	/* fio's line, in its words. */
	if (out && n == 1)
		fprintf(out, "%s: Laying out IO file (1 file / %lluMiB)\n", log_name(o->name),
			(unsigned long long)(bytes >> 20));
	else if (out)
		fprintf(out, "%s: Laying out IO files (%u files / total %lluMiB)\n", log_name(o->name),
			n, (unsigned long long)(bytes >> 20));
	for (unsigned int k = 0; k < load_nfiles(o) && !rc; k++) {
		if (tg[k].grown_to > tg[k].grown_from)
			rc = lay_out(load_file_opts(o, k), &tg[k]);
	}
	return rc;
}

void load_files_unlink(struct load_job_opts *o, const struct load_target *tg)
{
	for (unsigned int k = 0; k < load_nfiles(o); k++) {
		const struct load_job_opts *f = load_file_opts(o, k);
		const struct load_target *t = &tg[k];
		struct stat st;

		if (!o->unlink || t->is_blkdev || !f->filename || lstat(f->filename, &st))
			continue;
		if (!S_ISREG(st.st_mode) || st.st_dev != t->st_dev || st.st_ino != t->st_ino) {
			fprintf(stderr, "iolens load: %s: not removed (--unlink): no longer the file the job used\n",
				log_name(f->filename));
			continue;
		}
		if (unlink(f->filename))
			pr_err("%s: cannot remove it (--unlink): %s", log_name(f->filename), strerror(errno));
	}
}
