// SPDX-License-Identifier: GPL-2.0
/* Files root writes (lib/outfile.c): made if absent, emptied only when
 * asked, a link of the caller's followed, a second name (hard link)
 * refused, a FIFO nobody reads never waited on; a file removed or
 * replaced while written is noticed.  Links of another user need a second
 * user: tests/system/test_hostile_files.py. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lib/outfile.h"

static char dir[64], a[128], b[128];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/dev/shm/iolens-test-outfile-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void put(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(s, f);
	fclose(f);
}

/* a, opened as an output is: its fd. */
static int open_out(struct stat *st)
{
	char why[200];
	int fd = outfile_open(a, O_WRONLY, OUTFILE_TRUNC, st, why, sizeof(why));

	assert_true(fd >= 0);
	return fd;
}

static void test_made_and_emptied(void **state)
{
	struct stat st;
	char why[200];
	int fd;

	(void)state;
	fd = open_out(&st);
	assert_true(S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0644);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	/* Without OUTFILE_TRUNC (load's files) the bytes stay. */
	fd = outfile_open(a, O_RDWR, 0, &st, why, sizeof(why));
	assert_true(fd >= 0);
	assert_int_equal(st.st_size, 3);
	close(fd);
	fd = open_out(&st);
	fstat(fd, &st);
	assert_int_equal(st.st_size, 0);
	close(fd);
}

static void test_own_link_followed(void **state)
{
	char why[200], dangling[160];
	struct stat st;
	int fd;

	(void)state;
	put(a, "x");
	assert_int_equal(symlink("a", b), 0);	/* relative to its folder */
	fd = outfile_open(b, O_WRONLY, OUTFILE_TRUNC, &st, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lstat(b, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(a, &st), 0);
	assert_int_equal(st.st_size, 0);
	/* A loop of links ends. */
	unlink(a);
	assert_int_equal(symlink("b", a), 0);
	assert_int_equal(outfile_open(b, O_WRONLY, 0, NULL, why, sizeof(why)), -1);
	assert_int_equal(errno, ELOOP);
	snprintf(dangling, sizeof(dangling), "%s/c", dir);
	unlink(a);
	unlink(b);
	assert_int_equal(symlink(dangling, b), 0);
	fd = outfile_open(b, O_WRONLY, 0, NULL, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(access(dangling, F_OK), 0);
	unlink(b);
	unlink(dangling);
}

static void test_hard_link_refused(void **state)
{
	char why[200];

	(void)state;
	put(a, "x");
	assert_int_equal(link(a, b), 0);
	assert_int_equal(outfile_open(b, O_WRONLY, OUTFILE_TRUNC, NULL, why, sizeof(why)), -1);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(why, "2 names (hard links)"));
	unlink(b);
	unlink(a);
}

static void test_fifo_not_waited_on(void **state)
{
	char why[200];

	(void)state;
	assert_int_equal(mkfifo(a, 0600), 0);
	assert_int_equal(outfile_open(a, O_WRONLY, OUTFILE_TRUNC, NULL, why, sizeof(why)), -1);
	assert_int_equal(errno, ENXIO);
	unlink(a);
}

static void test_character_device(void **state)
{
	char why[200];
	int fd;

	(void)state;
	/* /dev/null: a character device, which only root can make. */
	fd = outfile_open("/dev/null", O_WRONLY, OUTFILE_TRUNC, NULL, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
}

static void test_removed_or_replaced(void **state)
{
	char why[200];
	struct stat st;
	int fd = open_out(&st);

	(void)state;
	assert_int_equal(outfile_still_there(a, &st, why, sizeof(why)), 0);
	unlink(a);
	assert_int_equal(outfile_still_there(a, &st, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "removed or renamed"));
	put(a, "other");
	assert_int_equal(outfile_still_there(a, &st, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "replaced"));
	close(fd);
	unlink(a);
}

/* Whole or not at all: the name holds the old file until outfile_end()
 * puts the new one in place, and still holds it when the new one fails. */
static void test_whole_or_nothing(void **state)
{
	struct outfile o;
	char got[16] = "";
	FILE *f;

	(void)state;
	put(a, "old");
	assert_int_equal(outfile_begin(&o, NULL, a, NULL), 0);
	fputs("new", o.f);
	fflush(o.f);
	f = fopen(a, "r");
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, "old");
	assert_int_equal(outfile_end(&o, NULL, false), 0);
	f = fopen(a, "r");
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, "old");

	assert_int_equal(outfile_begin(&o, NULL, a, NULL), 0);
	fputs("new", o.f);
	assert_int_equal(outfile_end(&o, NULL, true), 0);
	f = fopen(a, "r");
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, "new");
	/* Nothing else left in the folder. */
	assert_int_equal(system("test $(ls -A /dev/shm/iolens-test-outfile-*/ | wc -l) = 1"), 0);
	unlink(a);
}

/* An output that names an input, through another name too, is refused. */
static void test_never_onto_an_input(void **state)
{
	const char *inputs[] = { b, NULL };
	struct outfile o;

	(void)state;
	put(b, "trace");
	assert_int_equal(symlink("b", a), 0);
	assert_int_equal(outfile_begin(&o, NULL, a, inputs), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(outfile_begin(&o, NULL, b, inputs), -1);
	unlink(a);
	/* A device is written in place. */
	assert_int_equal(outfile_begin(&o, NULL, "/dev/null", inputs), 0);
	assert_int_equal(o.dirfd, -1);
	assert_int_equal(outfile_end(&o, NULL, true), 0);
	unlink(b);
}

int main(void)
{
#define IN_DIR(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		IN_DIR(test_made_and_emptied), IN_DIR(test_own_link_followed),
		IN_DIR(test_hard_link_refused), IN_DIR(test_fifo_not_waited_on),
		IN_DIR(test_character_device), IN_DIR(test_removed_or_replaced),
		IN_DIR(test_whole_or_nothing), IN_DIR(test_never_onto_an_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
