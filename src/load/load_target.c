// SPDX-License-Identifier: GPL-2.0
/*
 * What iolens load may write to, checked before any I/O: a regular file
 * (created if absent, extended if short, never truncated), or a block
 * device nobody uses: not mounted (nor any of its partitions), no holders
 * (device mapper, md, ...), no filesystem or partition-table signature.
 * Direct I/O the device cannot take is refused here too, with the size it
 * needs, rather than failing with EINVAL on the first request.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <blkid/blkid.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include "load/engine.h"
#include "load/load.h"
#include "lib/log.h"
#include "lib/outfile.h"
#include "lib/safepath.h"
#include "load/opts.h"
#include "load/target.h"
#include "load/verify.h"

/* Refusals are the user's request we will not do: the usage exit code,
 * as issue 5 asks, so that scripts tell them from failed I/O. */
#define REFUSED 2
#define FAILED 1

/* `what` it is, and what the user can do about it: --allow-destroy only
 * where it lets the write happen (a signature); a mounted or held device
 * stays refused by the kernel's O_EXCL (load_target_claim()). */
static int refuse(const struct load_job_opts *o, const char *why,
		  const char *what, const char *remedy)
{
	fprintf(stderr, "iolens load: %s: refusing to write: %s %s (%s)\n",
		log_name(o->filename), why, what, remedy);
	return REFUSED;
}

static bool job_writes(const struct load_job_opts *o)
{
	return o->rw != LOAD_RW_READ && o->rw != LOAD_RW_RANDREAD;
}

/* The sysfs directory of a device number, resolved; false if none. */
static bool sys_dir(dev_t dev, char *out)
{
	char p[64];

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	return realpath(p, out) != NULL;
}

/* Whether `other` is `dev` or one of its partitions. */
static bool same_or_part(dev_t dev, const char *dev_sys, unsigned int ma,
			 unsigned int mi)
{
	char other[PATH_MAX];
	size_t n = strlen(dev_sys);

	if (major(dev) == ma && minor(dev) == mi)
		return true;
	if (!sys_dir(makedev(ma, mi), other))
		return false;
	return !strncmp(other, dev_sys, n) && other[n] == '/';
}

/* Where `dev` (or a partition of it) is mounted, into `where`. */
static bool mounted(const char *path, dev_t dev, char *where, size_t len)
{
	char line[4096], dev_sys[PATH_MAX], real[PATH_MAX], src[PATH_MAX];
	char mnt[PATH_MAX], other[PATH_MAX];
	bool found = false, have_sys = sys_dir(dev, dev_sys);
	unsigned int ma, mi;
	FILE *f;

	/* mountinfo names the device by number, which covers every path
	 * and name it could have been mounted under. */
	f = fopen("/proc/self/mountinfo", "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) != 3)
			continue;
		if (have_sys ? same_or_part(dev, dev_sys, ma, mi) :
			       (major(dev) == ma && minor(dev) == mi)) {
			snprintf(where, len, "%s", mnt);
			found = true;
		}
	}
	if (f)
		fclose(f);
	if (found || !realpath(path, real))
		return found;
	/* /proc/mounts by path: a mount this namespace's mountinfo shows
	 * under another number (btrfs) still names the device. */
	f = fopen("/proc/mounts", "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%4095s %4095s", src, mnt) != 2 || src[0] != '/')
			continue;
		if (realpath(src, other) && !strcmp(other, real)) {
			snprintf(where, len, "%s", mnt);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* The first holder of `dev` (dm-0, md0), into `who`. */
static bool held(dev_t dev, char *who, size_t len)
{
	char p[96];
	struct dirent *d;
	bool found = false;
	DIR *dir;

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/holders", major(dev),
		 minor(dev));
	dir = opendir(p);
	if (!dir)
		return false;
	while (!found && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(who, len, "%s", d->d_name);
		found = true;
	}
	closedir(dir);
	return found;
}

/* A filesystem, RAID member or partition table on the device, by
 * libblkid: 1 found (what in `what`), 0 none, -1 could not probe. */
static int signature(const char *path, char *what, size_t len)
{
	const char *type = NULL, *kind = "filesystem";
	blkid_probe pr = blkid_new_probe_from_filename(path);
	int rc;

	if (!pr)
		return -1;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	/* safeprobe says -2 for two signatures at once (ambivalent): as
	 * much a reason to refuse as one. */
	rc = blkid_do_safeprobe(pr);
	if (rc == -2) {
		snprintf(what, len, "more than one signature");
		blkid_free_probe(pr);
		return 1;
	}
	if (rc == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL)) {
			kind = "partition table";
			if (blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL))
				type = "unknown";
		}
		snprintf(what, len, "%s %s", kind, type);
	}
	blkid_free_probe(pr);
	return rc == 0 ? 1 : rc == 1 ? 0 : -1;
}

static unsigned int read_uint(const char *path)
{
	unsigned int v = 0;
	FILE *f = fopen(path, "re");

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* The logical block size of the device a file lives on: its queue, or
 * the queue of the disk if it is a partition. */
static unsigned int file_lbs(dev_t dev, char *name, size_t len)
{
	char p[PATH_MAX + 64], real[PATH_MAX];
	unsigned int v;

	if (!sys_dir(dev, real))
		return 0;	/* tmpfs, btrfs subvolume: no queue to ask */
	snprintf(name, len, "%s", strrchr(real, '/') + 1);
	snprintf(p, sizeof(p), "%s/queue/logical_block_size", real);
	v = read_uint(p);
	if (v)
		return v;
	snprintf(p, sizeof(p), "%s/../queue/logical_block_size", real);
	return read_uint(p);
}

/* A device that takes no discards (discard_max_bytes 0) would fail each
 * trim with EOPNOTSUPP: refused before the start. */
static int check_discard(const struct load_job_opts *o, const struct stat *st)
{
	char p[PATH_MAX + 64], real[PATH_MAX];
	unsigned long long v = 0;
	FILE *f;

	if (!sys_dir(st->st_rdev, real))
		return 0;
	snprintf(p, sizeof(p), "%s/queue/discard_max_bytes", real);
	f = fopen(p, "re");
	if (!f) {
		/* A partition: its disk's queue. */
		snprintf(p, sizeof(p), "%s/../queue/discard_max_bytes", real);
		f = fopen(p, "re");
	}
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 1;
	fclose(f);
	if (v)
		return 0;
	fprintf(stderr, "iolens load: %s: the device takes no trims (discard_max_bytes is 0)\n",
		log_name(o->filename));
	return REFUSED;
}

/* The first size or offset the job may issue that is not a multiple of
 * `unit`: a name for the message, and the value in *val. */
static const char *misaligned(const struct load_job_opts *o, unsigned int unit,
			      __u64 *val)
{
	for (int d = 0; d < LOAD_DIRS; d++) {
		const struct load_bs *b = &o->bsz[d];

		if (!load_dir_used(o, d))
			continue;
		*val = b->min % unit ? b->min : b->max;
		for (unsigned int i = 0; i < b->nsplit; i++) {
			if (b->split[i].bs % unit)
				*val = b->split[i].bs;
		}
		if (*val % unit)
			return "block size";
		*val = load_blockalign(o, d);
		if (load_rw_random(o->rw) && *val % unit)
			return "--blockalign";
	}
	*val = o->offset;
	return o->offset % unit ? "--offset" : NULL;
}

static int check_blkdev(const struct load_job_opts *o, struct load_target *t,
			const struct stat *st)
{
	char what[PATH_MAX];
	int fd, rc;

	fd = safepath_open(o->filename, O_RDONLY | O_CLOEXEC, 0, NULL, what, sizeof(what));
	if (fd < 0) {
		pr_err("%s: %s", log_name(o->filename), what);
		return FAILED;
	}
	if (ioctl(fd, BLKGETSIZE64, &t->dev_size) ||
	    ioctl(fd, BLKSSZGET, &rc)) {
		pr_err("%s: cannot read its size: %s", log_name(o->filename), strerror(errno));
		close(fd);
		return FAILED;
	}
	close(fd);
	t->lbs = rc;
	snprintf(t->lbs_from, sizeof(t->lbs_from), "%s", o->filename);
	if (!t->writes || o->allow_destroy)
		return 0;
	if (mounted(o->filename, st->st_rdev, what, sizeof(what)))
		return refuse(o, "it is mounted on", what, "unmount it first");
	if (held(st->st_rdev, what, sizeof(what)))
		return refuse(o, "it is in use by", what, "stop using it first");
	rc = signature(o->filename, what, sizeof(what));
	if (rc < 0) {
		pr_err("%s: cannot probe it for a signature; not writing", log_name(o->filename));
		return FAILED;
	}
	if (rc)
		return refuse(o, "it holds a", what, "--allow-destroy overrides");
	return 0;
}

/* fio's --offset=N%: N% of the device or file, up to the next multiple
 * of --offset_align, or of the smallest block size. */
static void resolve_pct(struct load_job_opts *o, __u64 dev_size)
{
	__u64 align = o->offset_align ? o->offset_align : load_bs_min(o);
	__u64 v = (__u64)((unsigned __int128)dev_size * o->offset_pct / 100);

	if (o->offset_pct)
		o->offset = (v + align - 1) / align * align;
}

/* A loop device `st` (a regular file) backs that is mounted or held:
 * writing the file is writing under that filesystem's feet, as writing
 * the device would be.  REFUSED with its line, or 0. */
static int check_loop_backing(const struct load_job_opts *o, const struct stat *st)
{
	char p[PATH_MAX], back[PATH_MAX], dev[300], what[PATH_MAX], why[400];
	unsigned int ma, mi;
	struct dirent *d;
	struct stat bs;
	int rc = 0;
	DIR *dir;
	FILE *f;

	dir = opendir("/sys/block");
	while (dir && !rc && (d = readdir(dir))) {
		if (strncmp(d->d_name, "loop", 4))
			continue;
		/* Read now from the open file, so a rename since the attach
		 * is followed; a deleted backing file cannot be ours. */
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", d->d_name);
		f = fopen(p, "re");
		if (!f)
			continue;
		if (!fgets(back, sizeof(back), f))
			back[0] = '\0';
		fclose(f);
		back[strcspn(back, "\n")] = '\0';
		if (stat(back, &bs) || bs.st_dev != st->st_dev || bs.st_ino != st->st_ino)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/dev", d->d_name);
		f = fopen(p, "re");
		if (!f)
			continue;
		if (fscanf(f, "%u:%u", &ma, &mi) != 2)
			ma = mi = 0;
		fclose(f);
		snprintf(dev, sizeof(dev), "/dev/%s", d->d_name);
		if (mounted(dev, makedev(ma, mi), what, sizeof(what))) {
			snprintf(why, sizeof(why), "it backs %s, mounted on", dev);
			rc = refuse(o, why, what, "unmount it first; --allow-destroy overrides");
		} else if (held(makedev(ma, mi), what, sizeof(what))) {
			snprintf(why, sizeof(why), "it backs %s, in use by", dev);
			rc = refuse(o, why, what, "stop using it first; --allow-destroy overrides");
		}
	}
	if (dir)
		closedir(dir);
	return rc;
}

/* Grows a file from `from` to `to` bytes as fio's fallocate= says.  As
 * fio's, a failed allocation is said and the file grows sparse all the
 * same (ENOSPC then comes from the job's write, with its offset); only a
 * failed ftruncate stops the job. */
static int grow(const char *path, int fd, int how, __u64 from, __u64 to)
{
	int rc = 0;

	switch (how) {
	case LOAD_FALLOC_POSIX:
		rc = posix_fallocate(fd, from, to - from);
		errno = rc;
		break;
	case LOAD_FALLOC_KEEP:
		rc = fallocate(fd, FALLOC_FL_KEEP_SIZE, from, to - from);
		break;
	case LOAD_FALLOC_NATIVE:
		rc = fallocate(fd, 0, from, to - from);
		/* A file system without it: sparse, without a word. */
		if (rc && errno == EOPNOTSUPP)
			rc = 0;
		break;
	}
	if (rc)
		fprintf(stderr, "iolens load: %s: fallocate: %s; growing it sparse\n",
			path, strerror(errno));
	return ftruncate(fd, to);
}

/*
 * fio's create_on_open: a file not there yet is not made now, nor laid
 * out; the job's range is what its options say (fio's real_file_size is
 * offset + size), and the directory's device says its block size.
 */
static int prepare_absent(struct load_job_opts *o, struct load_target *t)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", o->filename);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (stat(slash ? dir : ".", &st)) {
		pr_err("%s: %s", slash ? dir : ".", strerror(errno));
		return FAILED;
	}
	if (!o->size && o->filesize > o->offset)
		o->size = o->filesize - o->offset;
	if (!o->size) {
		fprintf(stderr, "iolens load: %s: the file is made as the job starts (--create_on_open); give --size\n",
			log_name(o->filename));
		return REFUSED;
	}
	t->dev_size = o->offset + o->size;
	t->lbs = file_lbs(st.st_dev, t->lbs_from, sizeof(t->lbs_from));
	t->create_at_open = true;
	return 0;
}

static int prepare_file(struct load_job_opts *o, struct load_target *t)
{
	char why[200];
	bool ro = false;
	struct statvfs vfs;
	struct stat st;
	__u64 want;
	int fd;

	/* Never O_TRUNC: the file may be someone's data.  Extending it is a
	 * write even for a read job: a link another user planted to a file
	 * of root's is refused (lib/outfile.h). */
	fd = outfile_open(o->filename, O_RDWR, 0, &st, why, sizeof(why));
	if (fd < 0 && !t->writes && (errno == EACCES || errno == EPERM)) {
		if (errno == EACCES)
			snprintf(why, sizeof(why), "%s", strerror(errno));
		fd = safepath_open(o->filename, O_RDONLY | O_CLOEXEC, 0, NULL, why, sizeof(why));
		ro = true;
		if (fd >= 0 && fstat(fd, &st)) {
			close(fd);
			fd = -1;
		}
		if (fd < 0)
			snprintf(why, sizeof(why), "%s", strerror(errno));
	}
	if (fd < 0) {
		if (errno == EPERM) {
			fprintf(stderr, "iolens load: %s: %s\n", log_name(o->filename), why);
			return REFUSED;
		}
		pr_err("%s: %s", log_name(o->filename), why);
		return FAILED;
	}
	if (t->writes && !o->allow_destroy && check_loop_backing(o, &st)) {
		close(fd);
		return REFUSED;
	}
	/* fio's fill_device: as much as the file system has room for; the
	 * file is not grown first, the writes grow it until ENOSPC. */
	if (o->fill_device && !o->size && !fstatvfs(fd, &vfs)) {
		__u64 room = (__u64)vfs.f_bavail * vfs.f_frsize + st.st_size;

		if (room > o->offset + load_bs_max(o))
			o->size = (room - o->offset) / load_bs_max(o) * load_bs_max(o);
	}
	resolve_pct(o, st.st_size);
	if (!o->size && o->filesize > o->offset)
		o->size = o->filesize - o->offset;
	want = o->offset + o->size;
	if (o->filesize > want)
		want = o->filesize;
	t->st_dev = st.st_dev;
	t->st_ino = st.st_ino;
	t->grown_from = t->grown_to = st.st_size;
	/* Its size comes when it starts: a block until then, for the
	 * checks. */
	if (o->size_at_start && (__u64)st.st_size < o->offset + load_bs_max(o)) {
		o->size = load_bs_max(o);
		want = o->offset + o->size;
	}
	if (!o->size && (__u64)st.st_size <= o->offset) {
		close(fd);
		fprintf(stderr, "iolens load: %s: the file is %lld bytes; give --size\n",
			log_name(o->filename), (long long)st.st_size);
		return REFUSED;
	}
	/* Extend only: a longer file keeps its bytes past the range. */
	if (o->size && (__u64)st.st_size < want && ro) {
		close(fd);
		fprintf(stderr, "iolens load: %s: the file is %lld bytes, short of --offset + --size, and not one iolens may extend (%s)\n",
			log_name(o->filename), (long long)st.st_size, why);
		return REFUSED;
	}
	if (o->size && (__u64)st.st_size < want && !o->fill_device && !o->size_at_start) {
		if (grow(o->filename, fd, o->fallocate, st.st_size, want)) {
			pr_err("%s: cannot extend it to %llu bytes: %s", log_name(o->filename),
			       (unsigned long long)want, strerror(errno));
			close(fd);
			return FAILED;
		}
		t->grown_to = want;
	}
	t->dev_size = (__u64)st.st_size > want ? (__u64)st.st_size : want;
	t->lbs = file_lbs(st.st_dev, t->lbs_from, sizeof(t->lbs_from));
	close(fd);
	return 0;
}

/* A block device to write named through a symbolic link: the link must
 * be the caller's (udev's /dev/disk/by-id are root's), as for files. */
static int check_link(const struct load_job_opts *o)
{
	char why[200];
	int fd = outfile_open(o->filename, O_RDONLY, OUTFILE_BLKDEV, NULL, why, sizeof(why));

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == EPERM) {
		fprintf(stderr, "iolens load: %s: %s\n", log_name(o->filename), why);
		return REFUSED;
	}
	pr_err("%s: %s", log_name(o->filename), why);
	return FAILED;
}

/*
 * What --filename names, found as root opens anything a user may have
 * prepared (lib/safepath.h): through no link of another user's, and a
 * block device or a regular file of a real file system, never a file of
 * procfs, sysfs and the like (/proc/sys/kernel/core_pattern, /proc/PID/mem,
 * a queue setting) nor a file under /dev.  0 with its stat in *st, or
 * st->st_mode 0 if it is not there; REFUSED or FAILED after one line.
 */
static int lookup(const struct load_job_opts *o, struct stat *st)
{
	const char *pseudo;
	char why[200];
	int fd;

	memset(st, 0, sizeof(*st));
	fd = safepath_open(o->filename, O_PATH | O_CLOEXEC, 0, NULL, why, sizeof(why));
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0) {
		int err = errno;

		fprintf(stderr, "iolens load: %s: %s\n", log_name(o->filename), why);
		/* A name refused, or one no file could have: bad input. */
		return err == EPERM || err == ENAMETOOLONG || err == ELOOP || err == ENOTDIR ?
		       REFUSED : FAILED;
	}
	if (fstat(fd, st)) {
		pr_err("%s: %s", log_name(o->filename), strerror(errno));
		close(fd);
		return FAILED;
	}
	pseudo = S_ISBLK(st->st_mode) ? NULL : safepath_pseudo_fs(fd);
	close(fd);
	if (pseudo) {
		fprintf(stderr, "iolens load: %s: a file of %s: load drives block devices and files of real file systems\n",
			log_name(o->filename), pseudo);
		return REFUSED;
	}
	if (!S_ISBLK(st->st_mode) && !S_ISREG(st->st_mode)) {
		fprintf(stderr, "iolens load: %s: neither a regular file nor a block device\n",
			log_name(o->filename));
		return REFUSED;
	}
	return 0;
}

int load_target_prepare(struct load_job_opts *o, struct load_target *t)
{
	char shown[PATH_MAX + 16];
	const char *what;
	struct stat st;
	__u64 val;
	int rc;

	memset(t, 0, sizeof(*t));
	t->writes = job_writes(o);
	/* Before anything is made.  Each verified block says where it is and what it holds: one size
	 * for all, room for the header, on its own alignment, and no random
	 * offsets that repeat (a block read back must be the last one
	 * written there). */
	if (o->verify && (load_bs_min(o) != load_bs_max(o) || load_bs_min(o) < LOAD_VERIFY_MIN_BS ||
			  load_blockalign(o, LOAD_WRITE) != load_bs_min(o) ||
			  o->norandommap || o->dist.kind != LOAD_DIST_RANDOM)) {
		fprintf(stderr, "iolens load: job '%s': --verify needs one block size of at least %d bytes, aligned on itself, and the random map (no --norandommap or --random_distribution)\n",
			log_name(o->name), LOAD_VERIFY_MIN_BS);
		return REFUSED;
	}
	/* A strided zone moves the job over the device: the verify map,
	 * a distribution's ranks and rw's steps are of the range itself. */
	if (o->zonemode == LOAD_ZONE_STRIDED &&
	    (o->verify || o->dist.kind != LOAD_DIST_RANDOM || o->seq_add || o->seq_nr)) {
		fprintf(stderr, "iolens load: job '%s': zonemode=strided with --verify, --random_distribution or rw=PATTERN:N is not supported\n",
			log_name(o->name));
		return REFUSED;
	}
	/* A header a piece: room for it, and whole pieces a block. */
	if (o->verify && o->verify_interval &&
	    (o->verify_interval < LOAD_VERIFY_MIN_BS || o->verify_interval > load_bs_min(o) ||
	     load_bs_min(o) % o->verify_interval)) {
		fprintf(stderr, "iolens load: job '%s': --verify_interval must divide the block size and be at least %d bytes\n",
			log_name(o->name), LOAD_VERIFY_MIN_BS);
		return REFUSED;
	}
	if (o->verify == LOAD_VERIFY_PATTERN && !o->verify_pattern.len) {
		fprintf(stderr, "iolens load: job '%s': --verify=pattern needs --verify_pattern\n", log_name(o->name));
		return REFUSED;
	}
	/* fio's loops count passes; their bytes must be countable. */
	if (o->loops > 1 && o->size > ~0ULL / o->loops) {
		fprintf(stderr, "iolens load: job '%s': --loops=%u times --size is more bytes than can be counted\n",
			log_name(o->name), o->loops);
		return REFUSED;
	}
	if (o->ioengine->diskless) {
		/* Nothing to open: the range is only numbers, checked below
		 * as any other. */
		if (!o->size)
			o->size = o->filesize;
		if (!o->size || o->offset_pct || o->verify) {
			fprintf(stderr, "iolens load: job '%s': the %s engine has no file: give --size or --filesize, and no --offset=N%% or --verify\n",
				log_name(o->name), o->ioengine->name);
			return REFUSED;
		}
		t->dev_size = o->offset + o->size;
		rc = 0;
	} else if (!o->filename) {
		fprintf(stderr, "iolens load: job '%s': no --filename\n", log_name(o->name));
		return REFUSED;
	} else if ((rc = lookup(o, &st))) {
		return rc;
	} else if (S_ISBLK(st.st_mode)) {
		t->is_blkdev = true;
		rc = t->writes ? check_link(o) : 0;
		if (!rc)
			rc = check_blkdev(o, t, &st);
		if (!rc && load_dir_used(o, LOAD_TRIM))
			rc = check_discard(o, &st);
		if (!rc)
			resolve_pct(o, t->dev_size);
	} else if (load_dir_used(o, LOAD_TRIM)) {
		/* fio 3.33 issues BLKDISCARD here too and fails on the
		 * first trim with ENOTTY; refusing says it before anything. */
		fprintf(stderr, "iolens load: %s: trims need a block device (BLKDISCARD)\n",
			log_name(o->filename));
		return REFUSED;
	} else if (!o->allow_file_create && !st.st_mode) {
		fprintf(stderr, "iolens load: %s: %s, and --allow_file_create=0\n",
			log_name(o->filename), strerror(ENOENT));
		return REFUSED;
	} else if (o->create_on_open && !st.st_mode) {
		rc = prepare_absent(o, t);
	} else {
		rc = prepare_file(o, t);
	}
	if (rc)
		return rc;
	/* What the messages below name: the file, or the job of an engine
	 * that has none. */
	if (o->filename)
		snprintf(shown, sizeof(shown), "%s", o->filename);
	else
		snprintf(shown, sizeof(shown), "job '%s'", o->name);
	if (o->offset >= t->dev_size) {
		fprintf(stderr, "iolens load: %s: --offset=%llu is past its end (%llu bytes)\n",
			shown, (unsigned long long)o->offset,
			(unsigned long long)t->dev_size);
		return REFUSED;
	}
	if (!o->size)
		o->size = t->dev_size - o->offset;
	if (o->offset + o->size > t->dev_size) {
		fprintf(stderr, "iolens load: %s: --offset + --size = %llu is past its end (%llu bytes)\n",
			shown, (unsigned long long)(o->offset + o->size),
			(unsigned long long)t->dev_size);
		return REFUSED;
	}
	if (o->size < load_bs_min(o)) {
		fprintf(stderr, "iolens load: %s: --size=%llu is smaller than the block size %llu\n",
			shown, (unsigned long long)o->size,
			(unsigned long long)load_bs_min(o));
		return REFUSED;
	}
	/* Direct I/O and BLKDISCARD both take only whole logical blocks. */
	if ((o->direct || load_dir_used(o, LOAD_TRIM)) && t->lbs &&
	    (what = misaligned(o, t->lbs, &val))) {
		fprintf(stderr, "iolens load: %s: %s needs sizes and offsets in multiples of %u bytes, the logical block size of %s (%s %llu)\n",
			log_name(o->filename), o->direct ? "direct I/O" : "a trim", t->lbs,
			t->lbs_from, what, (unsigned long long)val);
		return REFUSED;
	}
	return 0;
}

int load_target_claim(const struct load_job_opts *o, const struct load_target *t,
		      int *fd)
{
	char why[200];

	*fd = -1;
	/* O_EXCL on a block device: the kernel refuses it while mounted or
	 * claimed, and keeps others from mounting it while we write.  The
	 * claim is per open file, so one open holds it for all threads. */
	if (!t->is_blkdev || !t->writes)
		return 0;
	*fd = safepath_open(o->filename, O_RDONLY | O_EXCL | O_CLOEXEC, 0, NULL, why, sizeof(why));
	if (*fd >= 0)
		return 0;
	if (errno == EBUSY) {
		fprintf(stderr, "iolens load: %s: refusing to write: the kernel says it is in use (O_EXCL)\n",
			log_name(o->filename));
		return 2;
	}
	pr_err("%s: %s", log_name(o->filename), why);
	return 1;
}

int load_target_open(const struct load_job_opts *o, const struct load_target *t,
		     char *why, size_t len)
{
	/* Making the file is a write, also for a read job (fio opens with
	 * O_CREAT then, and its reads find the end of an empty file). */
	bool writes = t->writes || t->create_at_open;
	int flags = O_CLOEXEC | (writes ? O_RDWR : O_RDONLY), fd;
	struct stat st;

	if (o->direct)
		flags |= O_DIRECT;
	/* Checked again: the name may have been replaced since prepare,
	 * by a FIFO too, which must not block the open. */
	if (writes)
		fd = outfile_open(o->filename, flags, OUTFILE_BLKDEV, &st, why, len);
	else
		fd = safepath_open(o->filename, flags | O_NONBLOCK, 0, NULL, why, len);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) ||
	    (S_ISREG(st.st_mode) && safepath_pseudo_fs(fd)) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		snprintf(why, len, "no longer a regular file or a block device of a real file system");
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int load_target_create(const struct load_job_opts *o, struct load_target *t, int *fd)
{
	char why[200];
	struct stat st;

	*fd = load_target_open(o, t, why, sizeof(why));
	if (*fd < 0 || fstat(*fd, &st)) {
		int e = errno;

		fprintf(stderr, "iolens load: job '%s': %s: %s\n", log_name(o->name), log_name(o->filename),
			*fd < 0 ? why : strerror(e));
		return e;
	}
	t->st_dev = st.st_dev;
	t->st_ino = st.st_ino;
	return 0;
}

int load_target_resize(struct load_job_opts *o, struct load_target *t, int fd)
{
	__u64 bs = load_bs_max(o);
	struct stat st;

	if (fstat(fd, &st)) {
		int e = errno;

		fprintf(stderr, "iolens load: job '%s': %s: %s\n", log_name(o->name), log_name(o->filename),
			strerror(e));
		return e;
	}
	if ((__u64)st.st_size < o->offset + bs) {
		fprintf(stderr, "iolens load: job '%s': %s is %lld bytes when the job starts, short of a block past --offset\n",
			log_name(o->name), log_name(o->filename), (long long)st.st_size);
		return EINVAL;
	}
	o->size = ((__u64)st.st_size - o->offset) / bs * bs;
	t->dev_size = st.st_size;
	return 0;
}
