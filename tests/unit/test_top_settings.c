// SPDX-License-Identifier: GPL-2.0
/* What top's keys and settings take: ioprio and signal names
 * (top/actions.c), and toprc written and read back (top/toprc.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/ioprio.h>
#include "top/actions.h"
#include "top/top.h"

static void test_ioprio_parse(void **state)
{
	int c, l;

	(void)state;
	assert_int_equal(top_ioprio_parse("be/7", &c, &l), 0);
	assert_int_equal(c, IOPRIO_CLASS_BE);
	assert_int_equal(l, 7);
	assert_int_equal(top_ioprio_parse("RT", &c, &l), 0);
	assert_int_equal(c, IOPRIO_CLASS_RT);
	assert_int_equal(l, 4);
	assert_int_equal(top_ioprio_parse("idle", &c, &l), 0);
	assert_int_equal(c, IOPRIO_CLASS_IDLE);
	assert_int_equal(top_ioprio_parse("none", &c, &l), 0);
	assert_int_equal(c, IOPRIO_CLASS_NONE);
	assert_int_equal(top_ioprio_parse("be/8", &c, &l), -1);
	assert_int_equal(top_ioprio_parse("be/", &c, &l), -1);
	assert_int_equal(top_ioprio_parse("idle/3", &c, &l), -1);
	assert_int_equal(top_ioprio_parse("fast", &c, &l), -1);
	assert_int_equal(top_ioprio_parse("", &c, &l), -1);
}

static void test_signal_parse(void **state)
{
	(void)state;
	assert_int_equal(top_signal_parse("15"), SIGTERM);
	assert_int_equal(top_signal_parse("KILL"), SIGKILL);
	assert_int_equal(top_signal_parse("sighup"), SIGHUP);
	assert_int_equal(top_signal_parse("0"), -1);
	assert_int_equal(top_signal_parse("999"), -1);
	assert_int_equal(top_signal_parse("NOPE"), -1);
}

/* The chooser's choice read back at the next start; a bad file keeps the
 * defaults and says so. */
static void test_toprc(void **state)
{
	char dir[] = "/tmp/iolens-toprc-XXXXXX", path[4096], cmd[4200];
	struct top_opts o = {}, back = {};
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("XDG_CONFIG_HOME", dir, 1);
	assert_string_equal(top_rc_path(path, sizeof(path)),
			    strcat(strcpy(cmd, dir), "/iolens/toprc"));
	back.ncols = top_cols_default(back.cols);
	assert_int_equal(top_rc_load(&back), 0);	/* none yet */
	o.ncols = top_cols_parse("io,pid,disk_read", o.cols, cmd, sizeof(cmd));
	assert_int_equal(top_rc_save(&o), 0);
	assert_int_equal(top_rc_load(&back), 0);
	assert_int_equal(back.ncols, 4);
	assert_memory_equal(back.cols, o.cols, 4 * sizeof(int));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("columns=pid,warp\n", f);
	fclose(f);
	back.ncols = top_cols_default(back.cols);
	assert_int_equal(top_rc_load(&back), -1);
	assert_int_equal(back.ncols, top_cols_default(o.cols));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ioprio_parse),
		cmocka_unit_test(test_signal_parse),
		cmocka_unit_test(test_toprc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
