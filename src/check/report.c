// SPDX-License-Identifier: GPL-2.0
/* iolens check's report: a verdict per finding, with its offenders and its
 * fix, in text or JSON. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "check/findings.h"
#include "check/partalign.h"
#include "lib/devices.h"
#include "lib/json.h"
#include "lib/sanitize.h"
#include "lib/units.h"
#include "lib/vec.h"

#define TOP 5

static int by_count(const void *a, const void *b)
{
	const struct offender *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0;
}

static void file_name(char *buf, size_t len, const struct offender *of)
{
	if (of->path[0])
		snprintf(buf, len, "%s", of->path);
	else if (of->name[0][0])
		snprintf(buf, len, "%s (inode %llu on %u:%u)", of->name[0],
			 (unsigned long long)of->ino, of->sdev >> 20, of->sdev & 0xfffff);
	else if (of->ino)
		snprintf(buf, len, "inode %llu on %u:%u", (unsigned long long)of->ino,
			 of->sdev >> 20, of->sdev & 0xfffff);
	else
		snprintf(buf, len, "(file unknown)");
}

static void text_offenders(const struct finding *f, bool examples)
{
	char file[PATH_MAX + 64], shown[SAN_TEXT_MAX(PATH_MAX + 64) + 1], sz[32];
	char comm[SAN_TEXT_MAX(IOLENS_COMM_LEN) + 1];

	for (int i = 0; i < f->n && i < TOP; i++) {
		const struct offender *of = &f->v[i];

		file_name(file, sizeof(file), of);
		fmt_bytes(sz, sizeof(sz), of->bytes);
		san_text_buf(shown, sizeof(shown), file);
		if (of->tgid)
			printf("         pid %-7u %-15s %8llu  %9s  %s\n", of->tgid,
			       san_text_buf(comm, sizeof(comm), of->comm),
			       (unsigned long long)of->count, sz, shown);
		else
			printf("         %-27s %8llu  %9s  %s\n", "(started before check)",
			       (unsigned long long)of->count, sz, shown);
		for (int k = 0; examples && k < of->nex; k++) {
			printf("           from a write of ");
			if (of->ex[k].count)
				printf("%llu bytes", (unsigned long long)of->ex[k].count);
			else
				printf("a vector");
			if (of->ex[k].pos >= 0)
				printf(" at offset %lld", (long long)of->ex[k].pos);
			printf("\n");
		}
	}
	if (f->n > TOP)
		printf("         ... and %d more\n", f->n - TOP);
}

static void json_offenders(struct json *j, const struct finding *f)
{
	json_arr_open(j, "offenders");
	for (int i = 0; i < f->n; i++) {
		const struct offender *of = &f->v[i];

		json_obj_open(j, NULL);
		if (of->tgid)
			json_u64(j, "pid", of->tgid);
		else
			json_null(j, "pid");
		json_str(j, "comm", of->comm);
		json_str(j, "file", of->path[0] ? of->path : NULL);
		json_str(j, "name", of->name[0][0] ? of->name[0] : NULL);
		json_u64(j, "ino", of->ino);
		json_u64(j, "count", of->count);
		json_u64(j, "bytes", of->bytes);
		json_arr_open(j, "writes");
		for (int k = 0; k < of->nex; k++) {
			json_obj_open(j, NULL);
			if (of->ex[k].pos >= 0)
				json_i64(j, "offset", of->ex[k].pos);
			else
				json_null(j, "offset");
			json_u64(j, "size", of->ex[k].count);
			json_obj_close(j);
		}
		json_arr_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void json_part(struct json *j, const struct partalign_part *p)
{
	json_obj_open(j, NULL);
	json_u64(j, "number", p->number);
	json_u64(j, "start", p->start);
	json_u64(j, "start_sector", p->start / 512);
	json_u64(j, "size", p->size);
	json_bool(j, "aligned", p->start_ok);
	json_bool(j, "size_aligned", p->size_ok);
	json_bool(j, "optimal_io_aligned", p->opt_ok);
	json_obj_close(j);
}

static void json_parts(struct json *j, const struct partalign *pa, int n)
{
	json_arr_open(j, "disks");
	for (int i = 0; i < n; i++) {
		json_obj_open(j, NULL);
		json_str(j, "path", pa[i].path);
		json_str(j, "source", pa[i].source);
		json_str(j, "table", pa[i].table[0] ? pa[i].table : NULL);
		json_u64(j, "logical_block", pa[i].lbs);
		json_u64(j, "physical_block", pa[i].pbs);
		json_u64(j, "optimal_io", pa[i].optimal_io);
		json_u64(j, "basis", pa[i].basis);
		json_str(j, "basis_from", pa[i].basis_from);
		json_arr_open(j, "partitions");
		for (int k = 0; k < pa[i].nparts; k++)
			json_part(j, &pa[i].parts[k]);
		json_arr_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void text_parts(const struct partalign *pa, int n)
{
	char shown[SAN_TEXT_MAX(sizeof(pa->path)) + 1];

	for (int i = 0; i < n; i++) {
		san_text_buf(shown, sizeof(shown), pa[i].path);
		if (!pa[i].nparts) {
			printf("         %s: no partition table\n", shown);
			continue;
		}
		printf("         %s: %d partition%s (%s%s%s), judged against %u B (%s%s)\n",
		       shown, pa[i].nparts, pa[i].nparts == 1 ? "" : "s",
		       pa[i].table[0] ? pa[i].table : "", pa[i].table[0] ? " table, " : "",
		       pa[i].source, pa[i].basis, pa[i].basis_from,
		       !strcmp(pa[i].basis_from, "assumed") ?
		       ": an image has no physical block; set --align" : "");
		for (int k = 0; k < pa[i].nparts; k++) {
			const struct partalign_part *p = &pa[i].parts[k];

			printf("           %-3d start sector %-10llu %s", p->number,
			       (unsigned long long)(p->start / 512),
			       p->start_ok ? "aligned" : "MISALIGNED");
			if (!p->start_ok)
				printf(" (%llu bytes = %llu * %u + %llu)",
				       (unsigned long long)p->start,
				       (unsigned long long)(p->start / pa[i].basis),
				       pa[i].basis, (unsigned long long)(p->start % pa[i].basis));
			else if (!p->opt_ok)
				printf(" (not on the optimal I/O size %u)", pa[i].optimal_io);
			printf("\n");
		}
	}
}

static const char *const fix_parts =
	"recreate the partition starting at a multiple of 2048 sectors (1 MiB), as parted and fdisk do by default";


int check_report(const struct check *c, struct outcome *out, int nout,
		 const struct partalign *pa, int npa, __u64 lost,
		 double seconds, bool traced)
{
	const struct check_opts *o = c->o;
	int fails = 0, bad = 0, nparts = 0;
	char sz[32];

	for (int i = 0; i < npa; i++) {
		bad += partalign_bad(&pa[i]);
		nparts += pa[i].nparts;
	}
	for (int i = 0; i < nout; i++) {
		out[i].fail = pct(out[i].f->count, out[i].total) > o->threshold ||
			      (out[i].f->count && !out[i].total);
		fails += out[i].fail;
		vec_sort(out[i].f->v, out[i].f->n, sizeof(*out[i].f->v), by_count);
	}
	fails += pct(bad, nparts) > o->threshold;
	if (o->json) {
		struct json j;

		json_init(&j, stdout);
		json_obj_open(&j, NULL);
		if (traced) {
			json_f64(&j, "seconds", seconds, 3);
			json_u64(&j, "lost", lost);
			json_u64(&j, "align", o->align);
		}
		json_f64(&j, "threshold_pct", o->threshold, 2);
		json_arr_open(&j, "findings");
		for (int i = 0; i < nout; i++) {
			json_obj_open(&j, NULL);
			json_str(&j, "check", out[i].name);
			json_str(&j, "verdict", out[i].fail ? "fail" : "pass");
			json_u64(&j, "count", out[i].f->count);
			json_u64(&j, "bytes", out[i].f->bytes);
			json_u64(&j, "total", out[i].total);
			json_str(&j, "total_of", out[i].total_of);
			json_f64(&j, "pct", pct(out[i].f->count, out[i].total), 2);
			json_str(&j, "fix", out[i].fix);
			json_offenders(&j, out[i].f);
			json_obj_close(&j);
		}
		json_obj_open(&j, NULL);
		json_str(&j, "check", "partitions");
		json_str(&j, "verdict", pct(bad, nparts) > o->threshold ? "fail" : "pass");
		json_u64(&j, "count", bad);
		json_u64(&j, "total", nparts);
		json_str(&j, "total_of", "partitions");
		json_str(&j, "fix", fix_parts);
		json_parts(&j, pa, npa);
		json_obj_close(&j);
		json_arr_close(&j);
		if (traced) {
			json_arr_open(&j, "disks");
			for (int i = 0; i < c->ndisks; i++) {
				const struct disk *d = &c->disks[i];

				json_obj_open(&j, NULL);
				json_str(&j, "disk", dev_name(d->dev));
				json_u64(&j, "logical_block", d->lbs);
				json_u64(&j, "physical_block", d->pbs);
				json_u64(&j, "basis", check_basis(c, d->pbs));
				json_u64(&j, "writes", d->writes);
				json_u64(&j, "write_bytes", d->write_bytes);
				json_u64(&j, "misaligned", d->misaligned);
				json_u64(&j, "small_direct", d->small_direct);
				json_u64(&j, "refused_direct", d->refused);
				json_obj_close(&j);
			}
			json_arr_close(&j);
		}
		json_obj_close(&j);
		json_newline(&j);
		return fails ? 1 : 0;
	}
	if (traced) {
		printf("iolens check: %.1f s, %llu write requests traced", seconds,
		       (unsigned long long)c->writes);
		if (lost)
			printf(", %llu events LOST (ring buffer full or hook skipped): counts below are short",
			       (unsigned long long)lost);
		printf("\n");
		for (int i = 0; i < c->ndisks; i++) {
			const struct disk *d = &c->disks[i];

			printf("  %-10s logical %u B, physical %u B, judged against %u B%s: %llu writes, %llu misaligned",
			       dev_name(d->dev), d->lbs, d->pbs, check_basis(c, d->pbs),
			       o->align ? " (--align)" : "", (unsigned long long)d->writes,
			       (unsigned long long)d->misaligned);
			if (d->refused)
				printf(", %llu O_DIRECT writes refused", (unsigned long long)d->refused);
			printf("\n");
		}
		printf("\n");
		for (int i = 0; i < nout; i++) {
			fmt_bytes(sz, sizeof(sz), out[i].f->bytes);
			printf("[%s] %s: ", out[i].fail ? "FAIL" : " ok ", out[i].title);
			if (!out[i].f->count)
				printf("none (of %llu %s)\n", (unsigned long long)out[i].total,
				       out[i].total_of);
			else
				printf("%llu, %s (%.1f%% of %llu %s)\n",
				       (unsigned long long)out[i].f->count, sz,
				       pct(out[i].f->count, out[i].total),
				       (unsigned long long)out[i].total, out[i].total_of);
			if (!out[i].f->count)
				continue;
			text_offenders(out[i].f, !strcmp(out[i].name, "page_cache_rmw"));
			printf("       fix: %s\n", out[i].fix);
		}
	}
	printf("[%s] partitions: ", pct(bad, nparts) > o->threshold ? "FAIL" : " ok ");
	if (!npa)
		printf("no disk with partitions\n");
	else if (!bad)
		printf("%d on %d disk%s, all aligned\n", nparts, npa, npa == 1 ? "" : "s");
	else
		printf("%d of %d misaligned\n", bad, nparts);
	text_parts(pa, npa);
	if (bad)
		printf("       fix: %s\n", fix_parts);
	return fails ? 1 : 0;
}
