// SPDX-License-Identifier: GPL-2.0
/*
 * iolens check: whether an I/O pattern makes the device or the page cache
 * read-modify-write, with a verdict and a fix per finding.
 *
 *   1. misaligned writes: write requests, as the device gets them, whose
 *      start or length is not a multiple of its physical block (or --align);
 *   2. page-cache RMW: data reads started inside a buffered write syscall;
 *   3. direct I/O below the physical sector of a 512e disk (a case of 1 the
 *      kernel accepts without a word: the disk reads and rewrites inside);
 *   4. partitions that do not start on the physical block.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "trace/block_trace.h"
#include "trace/check_trace.h"
#include "cli/commands.h"
#include "cli/filters.h"
#include "lib/devices.h"
#include "lib/json.h"
#include "load/load.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "check/partalign.h"
#include "lib/proctree.h"
#include "lib/units.h"
#include "lib/vec.h"

#define CMD "check"
#define MAX_PIDS 16
#define MAX_EXAMPLES 5
#define TOP 5

struct check_opts {
	__u32 devs[IOLENS_MAX_DEV_FILTER];
	int ndev;
	int pids[MAX_PIDS];
	int npid;
	const char *comm;
	unsigned int align;	/* 0: each disk's physical block */
	double threshold;	/* percent */
	__u64 duration_ns;
	bool json;
};

/* What one process did to one file (or, for writeback, the kernel to
 * one file), for one finding. */
struct offender {
	__u32 tgid;
	char comm[IOLENS_COMM_LEN];
	__u32 sdev;
	__u64 ino;
	char path[PATH_MAX];	/* "" when it could not be resolved */
	char name[IOLENS_CHECK_DEPTH][32];	/* see struct iolens_check_name */
	__u64 count, bytes;
	/* Syscalls that caused it: offset (-1 unknown) and size (0 unknown). */
	struct { __s64 pos; __u64 count; } ex[MAX_EXAMPLES];
	int nex;
};

struct finding {
	__u64 count, bytes;
	struct offender *v;
	int n;
};

struct disk {
	__u32 dev;
	unsigned int lbs, pbs;
	__u64 writes, write_bytes;
	__u64 misaligned, small_direct;
};

struct check {
	const struct check_opts *o;
	struct disk *disks;
	int ndisks;
	struct finding misaligned, rmw, small_direct;
	struct proctree tree;	/* of -p */
	__u64 writes;		/* write requests traced (after filters) */
};

static const struct cli_opt opts[] = {
	CLI_OPT_DEV,
	CLI_OPT('p', "pid", "PID", "only I/O of this process and its children; repeatable"),
	CLI_OPT('c', "comm", "NAME", "only I/O of processes with this command name"),
	CLI_OPT('a', "align", "BYTES", "judge against BYTES (a RAID stripe, a flash page;\nk, m suffixes) instead of each disk's physical block"),
	CLI_OPT('D', "duration", "TIME", "stop after TIME (seconds; or 500ms)"),
	CLI_OPT('t', "threshold", "PCT", "a finding fails above PCT percent of its total\n(default 0: any finding fails)"),
	CLI_OPT('j', "json", NULL, "JSON"),
	CLI_END,
};

const struct cli_cmd check_cli = {
	.name = CMD,
	.usage =
		"usage: iolens check [OPTIONS]              trace, then report at Ctrl-C or --duration\n"
		"       iolens check [--align BYTES] DISK|IMAGE...   check their partitions only\n",
	.about =
		"Validates an I/O pattern while a workload runs, with a verdict and a fix:\n"
		"  misaligned writes   write requests whose start or length is not a multiple\n"
		"                      of the disk's physical block (or --align), by process\n"
		"                      and file;\n"
		"  page-cache RMW      reads the page cache issues inside a buffered write to a\n"
		"                      page it does not hold (partial-page writes), with the\n"
		"                      offsets and sizes of the writes that caused them;\n"
		"  small direct I/O    O_DIRECT writes below the physical sector of a 512e disk\n"
		"                      (logical 512, physical 4096): the disk does the RMW;\n"
		"  partitions          starts not on the physical block (or --align), read from\n"
		"                      sysfs or from the partition table itself (libblkid).\n",
	.opts = opts,
	.more =
		"An image file has no physical block: without --align it is judged against\n"
		"4096 bytes, and says so.  Exit 0 when every check passes, 1 when one fails\n"
		"(or on a runtime error), 2 on a usage error.\n"
		"\n"
		"examples:\n"
		"  iolens check -D 30 -p $(pidof postgres)\n"
		"  iolens check --align 64k -d md0 -D 10\n"
		"  iolens check disk.img\n",
};

/* ---- filters ---- */

/* Whether a process passes -c and -p (itself or a descendant). */
static bool wanted(struct check *c, __u32 tgid, const char *comm)
{
	if (c->o->comm && strncmp(comm, c->o->comm, IOLENS_COMM_LEN - 1))
		return false;
	return !c->o->npid || proctree_has(&c->tree, tgid);
}

/* ---- aggregation ---- */

/* Whether `path` is the file of `of`. */
static bool same_file(const struct offender *of, const char *path)
{
	struct stat st;

	return !stat(path, &st) && st.st_ino == of->ino &&
	       kdev_make(major(st.st_dev), minor(st.st_dev)) == of->sdev;
}

/* The path of fd in tgid, if it is still the file the event names. */
static void resolve(struct offender *of, __u32 tgid, __s32 fd)
{
	char link[64];
	ssize_t n;

	if (fd < 0 || !tgid)
		return;
	snprintf(link, sizeof(link), "/proc/%u/fd/%d", tgid, fd);
	if (!same_file(of, link))
		return;
	n = readlink(link, of->path, sizeof(of->path) - 1);
	of->path[n > 0 ? n : 0] = 0;
}

/*
 * For a process gone by the time its event is read: the path components
 * the kernel side kept, under each mount of the file's filesystem whose
 * root they are below.  Found only if the file is still there.
 */
static void resolve_by_name(struct offender *of)
{
	char rel[IOLENS_CHECK_DEPTH * 33 + 1] = "", line[1024], cand[PATH_MAX];
	unsigned int ma, mi;
	char root[512], mnt[512];
	int k = 0;
	FILE *f;

	while (k < IOLENS_CHECK_DEPTH && of->name[k][0])
		k++;
	if (!k)
		return;
	for (int i = k - 1; i >= 0; i--) {
		strcat(rel, "/");
		strcat(rel, of->name[i]);
	}
	f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return;
	while (!of->path[0] && fgets(line, sizeof(line), f)) {
		size_t n;

		/* "id parent MAJ:MIN root mountpoint ..."; octal escapes in
		 * paths (\040) are left as they are: such a mount is missed. */
		if (sscanf(line, "%*u %*u %u:%u %511s %511s", &ma, &mi, root, mnt) != 4 ||
		    kdev_make(ma, mi) != of->sdev)
			continue;
		n = strcmp(root, "/") ? strlen(root) : 0;
		if (strncmp(rel, root, n) || (rel[n] && rel[n] != '/'))
			continue;
		snprintf(cand, sizeof(cand), "%s%s", strcmp(mnt, "/") ? mnt : "", rel + n);
		if (same_file(of, cand))
			snprintf(of->path, sizeof(of->path), "%s", cand);
	}
	fclose(f);
}

static struct offender *offender_of(struct finding *f,
				    const struct iolens_check_event *e)
{
	__u64 ino = e->sys.fd >= 0 ? e->sys.ino : e->page_ino;
	__u32 sdev = e->sys.fd >= 0 ? e->sys.sdev : e->page_sdev;
	struct offender *of;

	for (int i = 0; i < f->n; i++) {
		of = &f->v[i];
		if (of->tgid == e->tgid && of->ino == ino && of->sdev == sdev &&
		    !strncmp(of->comm, e->comm, IOLENS_COMM_LEN))
			return of;
	}
	of = vec_add(&f->v, &f->n, sizeof(*of));
	if (!of)
		return NULL;
	of->tgid = e->tgid;
	memcpy(of->comm, e->comm, IOLENS_COMM_LEN);
	of->comm[IOLENS_COMM_LEN - 1] = 0;
	of->sdev = sdev;
	of->ino = ino;
	if (e->sys.fd >= 0)
		memcpy(of->name, e->name.c, sizeof(of->name));
	for (int i = 0; i < IOLENS_CHECK_DEPTH; i++)
		of->name[i][sizeof(of->name[i]) - 1] = 0;
	resolve(of, e->tgid, e->sys.fd);
	if (!of->path[0])
		resolve_by_name(of);
	return of;
}

static void find(struct finding *f, const struct iolens_check_event *e)
{
	struct offender *of;

	f->count++;
	f->bytes += e->bytes;
	of = offender_of(f, e);
	if (!of)
		return;
	of->count++;
	of->bytes += e->bytes;
	if (e->sys.fd < 0)
		return;
	for (int i = 0; i < of->nex; i++)
		if (of->ex[i].pos == e->sys.pos && of->ex[i].count == e->sys.count)
			return;
	if (of->nex < MAX_EXAMPLES) {
		of->ex[of->nex].pos = e->sys.pos;
		of->ex[of->nex++].count = e->sys.count;
	}
}

static struct disk *disk_of(struct check *c, const struct iolens_check_event *e)
{
	struct disk *d;

	for (int i = 0; i < c->ndisks; i++)
		if (c->disks[i].dev == e->dev)
			return &c->disks[i];
	d = vec_add(&c->disks, &c->ndisks, sizeof(*d));
	if (!d)
		return NULL;
	d->dev = e->dev;
	d->lbs = e->lbs;
	d->pbs = e->pbs;
	return d;
}

static unsigned int basis_of(const struct check *c, unsigned int pbs)
{
	return c->o->align ? c->o->align : pbs;
}

static void on_event(void *ctx, const struct iolens_check_event *e)
{
	struct check *c = ctx;
	unsigned int basis;
	struct disk *d;

	if (!wanted(c, e->tgid, e->comm))
		return;
	if (e->kind == IOLENS_CHECK_RMW_READ) {
		find(&c->rmw, e);
		return;
	}
	d = disk_of(c, e);
	if (!d)
		return;
	c->writes++;
	d->writes++;
	d->write_bytes += e->bytes;
	basis = basis_of(c, e->pbs);
	if (!basis || ((e->sector << 9) % basis == 0 && e->bytes % basis == 0))
		return;
	d->misaligned++;
	find(&c->misaligned, e);
	/* The disk takes the logical block and rewrites whole physical
	 * ones: O_DIRECT was asked to bypass exactly that. */
	if (e->lbs < e->pbs && e->sys.fd >= 0 && e->sys.direct &&
	    ((e->sector << 9) % e->pbs || e->bytes % e->pbs)) {
		d->small_direct++;
		find(&c->small_direct, e);
	}
}

/* ---- the report ---- */

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

struct outcome {
	const char *name;	/* JSON "check" */
	const char *title;
	struct finding *f;
	__u64 total;		/* what count is a share of */
	const char *total_of;	/* "write requests", ... */
	const char *fix;
	bool fail;
};

static void text_offenders(const struct finding *f, bool examples)
{
	char file[PATH_MAX + 64], sz[32];

	for (int i = 0; i < f->n && i < TOP; i++) {
		const struct offender *of = &f->v[i];

		file_name(file, sizeof(file), of);
		fmt_bytes(sz, sizeof(sz), of->bytes);
		if (of->tgid)
			printf("         pid %-7u %-15s %8llu  %9s  %s\n", of->tgid,
			       of->comm, (unsigned long long)of->count, sz, file);
		else
			printf("         %-27s %8llu  %9s  %s\n", "(started before check)",
			       (unsigned long long)of->count, sz, file);
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
		for (int k = 0; k < pa[i].nparts; k++) {
			const struct partalign_part *p = &pa[i].parts[k];

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
		json_arr_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void text_parts(const struct partalign *pa, int n)
{
	for (int i = 0; i < n; i++) {
		if (!pa[i].nparts) {
			printf("         %s: no partition table\n", pa[i].path);
			continue;
		}
		printf("         %s: %d partition%s (%s%s%s), judged against %u B (%s%s)\n",
		       pa[i].path, pa[i].nparts, pa[i].nparts == 1 ? "" : "s",
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

/* The partitions of `paths` into pa[]; 0, or the exit code after a line. */
static int read_parts(const struct check_opts *o, char **paths, int n,
		      struct partalign *pa, int *npa)
{
	const char *why = "";
	int err;

	for (int i = 0; i < n; i++) {
		err = partalign_read(paths[i], o->align, &pa[*npa], &why);
		if (err) {
			fprintf(stderr, "iolens %s: %s: %s\n", CMD, paths[i], why);
			return err == -ENOENT || err == -EINVAL ? 2 : 1;
		}
		(*npa)++;
	}
	return 0;
}

static int report(const struct check *c, struct outcome *out, int nout,
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
				json_u64(&j, "basis", basis_of(c, d->pbs));
				json_u64(&j, "writes", d->writes);
				json_u64(&j, "write_bytes", d->write_bytes);
				json_u64(&j, "misaligned", d->misaligned);
				json_u64(&j, "small_direct", d->small_direct);
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

			printf("  %-10s logical %u B, physical %u B, judged against %u B%s: %llu writes, %llu misaligned\n",
			       dev_name(d->dev), d->lbs, d->pbs, basis_of(c, d->pbs),
			       o->align ? " (--align)" : "", (unsigned long long)d->writes,
			       (unsigned long long)d->misaligned);
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

/* Write syscalls of the processes wanted, from the kernel's table. */
static void count_calls(struct check *c, int fd, __u64 *calls, __u64 *direct)
{
	__u32 key, next, *prev = NULL;
	struct iolens_check_calls v;

	*calls = *direct = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		v.comm[IOLENS_COMM_LEN - 1] = 0;
		if (!wanted(c, key, v.comm))
			continue;
		*calls += v.calls;
		*direct += v.direct;
	}
}

/* Disks to check the partitions of after tracing: those asked for, else
 * every disk seen writing. */
static int traced_parts(const struct check *c, struct partalign *pa, int *npa)
{
	const struct check_opts *o = c->o;
	int n = o->ndev ? o->ndev : c->ndisks;
	char path[64];
	const char *why;

	for (int i = 0; i < n && *npa < IOLENS_MAX_DEV_FILTER * 4; i++) {
		__u32 dev = o->ndev ? o->devs[i] : c->disks[i].dev;

		snprintf(path, sizeof(path), "/dev/%s", dev_name(dev));
		if (!partalign_read(path, o->align, &pa[*npa], &why) && pa[*npa].nparts)
			(*npa)++;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct check_opts *o)
{
	struct cli_parser p;
	int opt, rc;
	char *end;
	__u32 pid;
	__u64 v;

	cli_begin(&p, &check_cli, argc, argv);
	while ((opt = cli_next(&p)) > 0) {
		switch (opt) {
		case 'd':
			rc = cli_disk(CMD, optarg, o->devs, &o->ndev);
			if (rc)
				return rc;
			break;
		case 'p':
			if (parse_pid(optarg, &pid))
				return usage_err(CMD, "--pid takes a process id, not '%s'", optarg);
			if (cli_pids_live(CMD, &pid, 1))
				return 2;
			if (o->npid == MAX_PIDS)
				return usage_err(CMD, "at most %d --pid", MAX_PIDS);
			o->pids[o->npid++] = (int)pid;
			break;
		case 'c':
			o->comm = optarg;
			break;
		case 'a':
			if (parse_size(optarg, &v) || !v || v > (1U << 30) || v % 512)
				return usage_err(CMD, "--align takes a size in bytes, a multiple of 512 (4096, 64k), not '%s'", optarg);
			o->align = (unsigned int)v;
			break;
		case 'D':
			if (parse_duration(optarg, 1e9, &o->duration_ns) ||
			    !o->duration_ns)
				return usage_err(CMD, "--duration takes a time (10, 2.5s, 500ms), not '%s'", optarg);
			break;
		case 't':
			o->threshold = strtod(optarg, &end);
			if (*end || end == optarg || o->threshold < 0 || o->threshold > 100)
				return usage_err(CMD, "--threshold takes a percentage from 0 to 100, not '%s'", optarg);
			break;
		case 'j':
			o->json = true;
			break;
		}
	}
	if (opt < 0)
		return opt == CLI_HELP ? -1 : 2;
	return 0;
}

int cmd_check(int argc, char **argv)
{
	struct check_opts o = {};
	struct check c = { .o = &o };
	struct partalign *pa;
	struct check_trace *ct;
	__u64 traced = 0, calls = 0, direct = 0, lost;
	int rc, npa = 0;
	double seconds;

	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	proctree_init(&c.tree, o.pids, o.npid);
	pa = calloc(optind < argc ? argc - optind : IOLENS_MAX_DEV_FILTER * 4, sizeof(*pa));
	if (!pa)
		return 1;
	if (optind < argc) {
		if (o.ndev || o.npid || o.comm || o.duration_ns) {
			free(pa);
			return usage_err(CMD, "DISK or IMAGE arguments check partitions only: -d, -p, -c and -D trace, and take none");
		}
		rc = read_parts(&o, argv + optind, argc - optind, pa, &npa);
		if (!rc)
			rc = report(&c, NULL, 0, pa, npa, 0, 0, false);
		free(pa);
		return rc;
	}
	ct = check_trace_start(CMD, o.devs, o.ndev);
	if (!ct) {
		free(pa);
		return 1;
	}
	fprintf(stderr, "Checking writes%s... Ctrl-C to end.\n",
		o.duration_ns ? " for the given duration" : "");
	rc = check_trace_run(ct, o.duration_ns, on_event, &c, &traced);
	seconds = traced / 1e9;
	lost = check_trace_lost(ct);
	count_calls(&c, check_trace_calls_fd(ct), &calls, &direct);
	check_trace_stop(ct);
	if (!rc) {
		struct outcome out[] = {
			{ "misaligned_writes", "misaligned writes", &c.misaligned,
			  c.writes, "write requests",
			  "align write offsets and sizes to the basis above: the database or filesystem page size, O_DIRECT buffers and offsets, fio's --bs/--blockalign", false },
			{ "page_cache_rmw", "page-cache read-modify-write", &c.rmw,
			  calls - direct, "buffered write syscalls of the processes traced",
			  "write whole pages (pad records to 4096 bytes, or to the filesystem block) or keep the file cached; O_DIRECT writes of whole blocks avoid the read", false },
			{ "small_direct_512e", "direct I/O below the physical sector (512e)",
			  &c.small_direct, direct, "O_DIRECT write syscalls of the processes traced",
			  "write O_DIRECT in multiples of the physical block (4096 bytes) at offsets that are multiples of it", false },
		};

		traced_parts(&c, pa, &npa);
		rc = report(&c, out, 3, pa, npa, lost, seconds, true);
	}
	free(c.disks);
	free(c.misaligned.v);
	free(c.rmw.v);
	free(c.small_direct.v);
	proctree_free(&c.tree);
	free(pa);
	return rc;
}
