// SPDX-License-Identifier: GPL-2.0
/* load's options (load_opts.c, by the table of load/options.def) and its
 * engines (load/engines.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "load/engine.h"
#include "load/load.h"

/* load_opt_set(): 0, -1 for an unknown option, -2 for a bad value. */
static void test_load_opt_numbers(void **state)
{
	struct load_job_opts o;
	const char *err = NULL;

	(void)state;
	load_opts_init(&o);
	assert_int_equal(o.bs, 4096);
	assert_int_equal(o.iodepth, 1);
	assert_int_equal(o.randseed, 0x89);

	assert_int_equal(load_opt_set(&o, "bs", "64k", &err), 0);
	assert_int_equal(o.bs, 65536);
	assert_int_equal(o.bsz[LOAD_WRITE].min, 65536);
	assert_int_equal(load_opt_set(&o, "size", "1g", &err), 0);
	assert_int_equal(o.size, 1ULL << 30);
	assert_int_equal(load_opt_set(&o, "offset", "25%", &err), 0);
	assert_int_equal(o.offset_pct, 25);
	assert_int_equal(o.offset, 0);
	assert_int_equal(load_opt_set(&o, "offset", "1m", &err), 0);
	assert_int_equal(o.offset_pct, 0);
	assert_int_equal(o.offset, 1048576);
	assert_int_equal(load_opt_set(&o, "iodepth", "65535", &err), 0);
	assert_int_equal(o.iodepth, 65535);
	assert_int_equal(load_opt_set(&o, "rwmixread", "0", &err), 0);
	assert_int_equal(o.rwmixread, 0);
	assert_int_equal(load_opt_set(&o, "randseed", "18446744073709551615", &err), 0);
	assert_int_equal(o.randseed, ~0ULL);
	assert_int_equal(load_opt_set(&o, "runtime", "90", &err), 0);
	assert_int_equal(o.runtime_ns, 90000000000ULL);
	assert_int_equal(load_opt_set(&o, "direct", NULL, &err), 0);
	assert_true(o.direct);
	assert_int_equal(load_opt_set(&o, "direct", "off", &err), 0);
	assert_false(o.direct);
	assert_int_equal(load_opt_set(&o, "rate_iops", "100,200", &err), 0);
	assert_int_equal(o.rate_iops[LOAD_READ], 100);
	assert_int_equal(o.rate_iops[LOAD_WRITE], 200);
	assert_int_equal(o.rate_iops[LOAD_TRIM], 200);

	err = NULL;
	assert_int_equal(load_opt_set(&o, "no_such_option", "4k", &err), -1);
	assert_non_null(err);
	assert_int_equal(load_opt_set(&o, "bs", "0", &err), -2);
	assert_int_equal(load_opt_set(&o, "bs", "4x", &err), -2);
	assert_int_equal(load_opt_set(&o, "bs", NULL, &err), -2);
	assert_int_equal(load_opt_set(&o, "iodepth", "0", &err), -2);
	assert_int_equal(load_opt_set(&o, "iodepth", "65536", &err), -2);
	assert_int_equal(load_opt_set(&o, "iodepth", "-1", &err), -2);
	assert_int_equal(load_opt_set(&o, "iodepth", "8k", &err), -2);
	assert_int_equal(load_opt_set(&o, "numjobs", "4097", &err), -2);
	assert_int_equal(load_opt_set(&o, "rwmixread", "101", &err), -2);
	assert_int_equal(load_opt_set(&o, "randseed", "-1", &err), -2);
	assert_int_equal(load_opt_set(&o, "randseed", "", &err), -2);
	assert_int_equal(load_opt_set(&o, "offset", "101%", &err), -2);
	assert_int_equal(load_opt_set(&o, "offset", "-1%", &err), -2);
	assert_int_equal(load_opt_set(&o, "rate_iops", "1,2,3,4", &err), -2);
	assert_int_equal(load_opt_set(&o, "runtime", "-5", &err), -2);
	/* A bad whole number or offset does not change what was set. */
	assert_int_equal(o.iodepth, 65535);
	assert_int_equal(o.rwmixread, 0);
	assert_int_equal(o.offset, 1048576);
	assert_int_equal(o.runtime_ns, 90000000000ULL);
}

/* fio's cmdprio_bssplit: by direction, 0% entries dropped, by block size
 * with one size's entries in their order, a class and level or none. */
static void test_load_cmdprio(void **state)
{
	struct load_job_opts o;
	const struct load_prio_split *r, *w;
	const char *err = NULL;

	(void)state;
	load_opts_init(&o);
	assert_int_equal(o.prio, LOAD_PRIO_UNSET);
	assert_int_equal(load_opt_set(&o, "cmdprio_bssplit",
				      "1m/10:64k/25/1/1:4k/0:64k/75/3/2,1m/0", &err), 0);
	r = &o.cmdprio_split[LOAD_READ];
	w = &o.cmdprio_split[LOAD_WRITE];
	assert_int_equal(r->n, 3);
	assert_int_equal(r->e[0].bs, 65536);
	assert_int_equal(r->e[0].perc, 25);
	assert_int_equal(r->e[0].ioprio, 1 << 13 | 1);
	assert_int_equal(r->e[1].bs, 65536);
	assert_int_equal(r->e[1].ioprio, 3 << 13 | 2);
	assert_int_equal(r->e[2].bs, 1 << 20);
	assert_int_equal(r->e[2].ioprio, -1);
	assert_int_equal(w->n, 0);
	/* fio's class 0 is best-effort. */
	assert_int_equal(load_opt_set(&o, "cmdprio_bssplit", "4k/50/0/4", &err), 0);
	assert_int_equal(o.cmdprio_split[LOAD_WRITE].e[0].ioprio, 2 << 13 | 4);
	assert_int_equal(load_opt_set(&o, "cmdprio_percentage", "20,30", &err), 0);
	assert_int_equal(o.cmdprio_pct[LOAD_READ], 20);
	assert_int_equal(o.cmdprio_pct[LOAD_WRITE], 30);

	assert_int_equal(load_opt_set(&o, "cmdprio_bssplit", "4k/60:4k/41", &err), -2);
	assert_int_equal(load_opt_set(&o, "cmdprio_bssplit", "4k/10/1", &err), -2);
	assert_int_equal(load_opt_set(&o, "cmdprio_bssplit", "4k/10/4/0", &err), -2);
	assert_int_equal(load_opt_set(&o, "cmdprio_bssplit", "4k/10/1/8", &err), -2);
	assert_int_equal(load_opt_set(&o, "cmdprio_bssplit", "4k/101", &err), -2);
	assert_int_equal(load_opt_set(&o, "cmdprio_bssplit", "0/10", &err), -2);
	assert_int_equal(load_opt_set(&o, "cmdprio_class", "0", &err), -2);
	assert_int_equal(load_opt_set(&o, "cmdprio_percentage", "101", &err), -2);
	assert_int_equal(load_opt_set(&o, "prio", "8", &err), -2);
}

/* Engines are found by name from one table; the first is the default,
 * and what --help lists is what --ioengine takes. */
static void test_engines(void **state)
{
	struct load_job_opts o;
	const char *err = NULL;
	char *buf = NULL, name[32];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n = 0;

	(void)state;
	load_opts_init(&o);
	assert_ptr_equal(o.ioengine, load_engine_find(NULL));
	assert_string_equal(o.ioengine->name, "psync");
	assert_true(o.ioengine->sync);
	assert_non_null(o.ioengine->queue);

	assert_int_equal(load_opt_set(&o, "ioengine", "io_uring", &err), 0);
	assert_string_equal(o.ioengine->name, "io_uring");
	assert_false(o.ioengine->sync);
	assert_int_equal(load_opt_set(&o, "ioengine", "libaio", &err), 0);
	assert_string_equal(o.ioengine->name, "libaio");
	assert_int_equal(load_opt_set(&o, "ioengine", "windowsaio", &err), -2);
	assert_string_equal(err, "want one of: psync sync vsync pvsync pvsync2 posixaio libaio io_uring mmap null");
	assert_string_equal(o.ioengine->name, "libaio");
	assert_null(load_engine_find("IO_URING"));

	assert_non_null(f);
	load_engines_help(f);
	fclose(f);
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		const struct load_engine *e;

		assert_int_equal(sscanf(line, " %31s", name), 1);
		e = load_engine_find(name);
		assert_non_null(e);
		/* What every engine must have; the rest is optional. */
		assert_non_null(e->queue);
		assert_true(e->sync || e->reap);
		assert_non_null(strstr(line, e->help));
		n++;
	}
	assert_int_equal(n, 10);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_opt_numbers),
		cmocka_unit_test(test_load_cmdprio),
		cmocka_unit_test(test_engines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
