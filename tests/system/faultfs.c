// SPDX-License-Identifier: GPL-2.0
/*
 * A disk that fails where a test says, for the tests of failed and stuck
 * requests on this machine's kernel (no null_blk or scsi_debug here): a
 * FUSE file system with one file, `disk`, held in memory, that a loop
 * device is set up on.  Every read or write of the loop device reaches this
 * process (the file is opened with direct_io: no page cache in between),
 * and one that touches a failing range ends with EIO, which the loop
 * driver completes the request with (BLK_STS_IOERR); one that touches a
 * held range waits until released, the request in flight all that time.
 *
 *   faultfs MOUNTPOINT SIZE_MB [DELAY_US]
 *
 * DELAY_US: every read and write of `disk` takes that long more (make
 * test-shake's slow disk).
 *
 * The file `ctl` takes one command per write:
 *   fail START LEN    bytes [START, START + LEN) fail from now on
 *   hold START LEN    bytes there wait until "release"
 *   release           the held ones go on; nothing is held any more
 *   clear             nothing fails or is held
 * and reads back "failed N\nheld N\n": the reads and writes failed, and
 * those that waited, so far.
 */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fuse.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *disk;
static size_t disk_size;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t released = PTHREAD_COND_INITIALIZER;
static off_t fail_at, fail_len, hold_at, hold_len;
static unsigned long failed, held, generation;
static useconds_t delay_us;

static int is_ctl(const char *path)
{
	return !strcmp(path, "/ctl");
}

static int ff_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (!strcmp(path, "/disk")) {
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = disk_size;
	} else if (is_ctl(path)) {
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = 64;
	} else {
		return -ENOENT;
	}
	return 0;
}

static int ff_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off, (void)fi, (void)flags;
	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "disk", NULL, 0, 0);
	fill(buf, "ctl", NULL, 0, 0);
	return 0;
}

static int ff_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/disk") && !is_ctl(path))
		return -ENOENT;
	/* Each read and write comes here: none is served from the cache. */
	fi->direct_io = 1;
	return 0;
}

static int ff_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	(void)size, (void)fi;
	return is_ctl(path) ? 0 : -EPERM;
}

static int overlaps(off_t off, size_t len, off_t at, off_t n)
{
	return n && off < at + n && at < off + (off_t)len;
}

/* EIO where the range fails; a wait where it is held, and the delay.
 * 0: go on. */
static int fault(off_t off, size_t len)
{
	int rc = 0;

	if (delay_us)
		usleep(delay_us);

	pthread_mutex_lock(&lock);
	if (overlaps(off, len, fail_at, fail_len)) {
		failed++;
		rc = -EIO;
	} else if (overlaps(off, len, hold_at, hold_len)) {
		unsigned long gen = generation;

		held++;
		while (gen == generation)
			pthread_cond_wait(&released, &lock);
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

static int ff_read(const char *path, char *buf, size_t len, off_t off,
		   struct fuse_file_info *fi)
{
	char text[64];
	int n, rc;

	(void)fi;
	if (is_ctl(path)) {
		pthread_mutex_lock(&lock);
		n = snprintf(text, sizeof(text), "failed %lu\nheld %lu\n", failed, held);
		pthread_mutex_unlock(&lock);
		if (off >= n)
			return 0;
		n = (size_t)(n - off) < len ? n - off : (int)len;
		memcpy(buf, text + off, n);
		return n;
	}
	if ((size_t)off >= disk_size)
		return 0;
	if (len > disk_size - off)
		len = disk_size - off;
	rc = fault(off, len);
	if (rc)
		return rc;
	memcpy(buf, disk + off, len);
	return len;
}

static int command(const char *buf, size_t len)
{
	char line[128];
	long long a, b;

	if (len >= sizeof(line))
		return -EINVAL;
	memcpy(line, buf, len);
	line[len] = '\0';
	pthread_mutex_lock(&lock);
	if (sscanf(line, "fail %lld %lld", &a, &b) == 2) {
		fail_at = a;
		fail_len = b;
	} else if (sscanf(line, "hold %lld %lld", &a, &b) == 2) {
		hold_at = a;
		hold_len = b;
	} else if (!strncmp(line, "release", 7)) {
		hold_len = 0;
		generation++;
		pthread_cond_broadcast(&released);
	} else if (!strncmp(line, "clear", 5)) {
		fail_len = hold_len = 0;
		generation++;
		pthread_cond_broadcast(&released);
	} else {
		pthread_mutex_unlock(&lock);
		return -EINVAL;
	}
	pthread_mutex_unlock(&lock);
	return len;
}

static int ff_write(const char *path, const char *buf, size_t len, off_t off,
		    struct fuse_file_info *fi)
{
	int rc;

	(void)fi;
	if (is_ctl(path))
		return command(buf, len);
	if ((size_t)off >= disk_size)
		return -ENOSPC;
	if (len > disk_size - off)
		len = disk_size - off;
	rc = fault(off, len);
	if (rc)
		return rc;
	memcpy(disk + off, buf, len);
	return len;
}

static const struct fuse_operations ops = {
	.getattr = ff_getattr,
	.readdir = ff_readdir,
	.open = ff_open,
	.truncate = ff_truncate,
	.read = ff_read,
	.write = ff_write,
};

int main(int argc, char **argv)
{
	char *args[] = { argv[0], "-f", "-o", "default_permissions", argv[1], NULL };

	if (argc < 3 || argc > 4 || atol(argv[2]) <= 0) {
		fprintf(stderr, "usage: faultfs MOUNTPOINT SIZE_MB [DELAY_US]\n");
		return 2;
	}
	if (argc == 4)
		delay_us = atol(argv[3]);
	disk_size = (size_t)atol(argv[2]) << 20;
	disk = calloc(1, disk_size);
	if (!disk) {
		fprintf(stderr, "faultfs: out of memory\n");
		return 1;
	}
	return fuse_main(5, args, &ops, NULL);
}
