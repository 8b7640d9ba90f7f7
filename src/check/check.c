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
#include <stddef.h>
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
#include "check/check.h"
#include "check/findings.h"
#include "check/partalign.h"
#include "lib/devices.h"
#include "lib/log.h"
#include "lib/proctree.h"
#include "lib/vec.h"

#define CMD "check"

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
	if (of->nex < CHECK_MAX_EXAMPLES) {
		of->ex[of->nex].pos = e->sys.pos;
		of->ex[of->nex++].count = e->sys.count;
	}
}

static struct disk *disk_of(struct check *c, const struct iolens_check_event *e)
{
	bool added;
	struct disk *d = vec_get_by(&c->disks, &c->ndisks, dev, &e->dev, &added);

	if (d && added) {
		d->lbs = e->lbs;
		d->pbs = e->pbs;
	}
	return d;
}

/* Whether the whole disk `disk` is one -d asked for (all without -d). */
static bool disk_wanted(const struct check *c, __u32 disk)
{
	for (int i = 0; i < c->o->ndev; i++)
		if (c->o->devs[i] == disk)
			return true;
	return !c->o->ndev;
}

/* An O_DIRECT write the kernel refused (no request): counted on the whole
 * disk under its file, whose logical block says why. */
static void refused(struct check *c, const struct iolens_check_event *e)
{
	struct iolens_check_event x = *e;
	struct dev_info info;
	struct disk *d;

	if (!dev_lookup(e->dev, &info) && !dev_lookup(info.disk, &info)) {
		x.dev = info.dev;
		x.lbs = info.logical_bs;
		x.pbs = info.physical_bs;
	}
	if (!disk_wanted(c, x.dev))
		return;
	d = disk_of(c, &x);
	if (d)
		d->refused++;
	find(&c->refused, &x);
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
	if (e->kind == IOLENS_CHECK_REFUSED) {
		refused(c, e);
		return;
	}
	d = disk_of(c, e);
	if (!d)
		return;
	c->writes++;
	d->writes++;
	d->write_bytes += e->bytes;
	basis = check_basis(c, e->pbs);
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

/* The partitions of `paths` into pa[]; 0, or the exit code after a line. */
static int read_parts(const struct check_opts *o, char *const *paths, int n,
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

int check_run(const struct check_opts *o)
{
	struct check c = { .o = o };
	struct partalign *pa;
	struct check_trace *ct;
	__u64 traced = 0, calls = 0, direct = 0, lost;
	int rc, npa = 0;
	double seconds;

	proctree_init(&c.tree, o->pids, o->npid);
	pa = calloc(o->npaths ? o->npaths : IOLENS_MAX_DEV_FILTER * 4, sizeof(*pa));
	if (!pa)
		return 1;
	if (o->npaths) {
		rc = read_parts(o, o->paths, o->npaths, pa, &npa);
		if (!rc)
			rc = check_report(&c, NULL, 0, pa, npa, 0, 0, false);
		proctree_free(&c.tree);
		free(pa);
		return rc;
	}
	ct = check_trace_start(CMD, o->devs, o->ndev);
	if (!ct) {
		free(pa);
		return 1;
	}
	fprintf(stderr, "Checking writes%s... Ctrl-C to end.\n",
		o->duration_ns ? " for the given duration" : "");
	rc = check_trace_run(ct, o->duration_ns, on_event, &c, &traced);
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
			{ "refused_direct_writes", "O_DIRECT writes the kernel refused (EINVAL)",
			  &c.refused, direct, "O_DIRECT write syscalls of the processes traced",
			  "the kernel takes O_DIRECT only in multiples of the disk's logical block (above: 4096 bytes on a 4Kn disk) in offset, size and buffer address; write in those, or drop O_DIRECT", false },
		};

		traced_parts(&c, pa, &npa);
		rc = check_report(&c, out, sizeof(out) / sizeof(out[0]), pa, npa, lost,
				  seconds, true);
	}
	free(c.disks);
	free(c.misaligned.v);
	free(c.rmw.v);
	free(c.small_direct.v);
	free(c.refused.v);
	proctree_free(&c.tree);
	free(pa);
	return rc;
}
