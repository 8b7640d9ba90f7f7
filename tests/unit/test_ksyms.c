// SPDX-License-Identifier: GPL-2.0
/* Kernel addresses named from this machine's /proc/kallsyms (lib/ksyms.c),
 * against the file's own lines: needs root, as the tests run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include "lib/ksyms.h"

/* The address of text symbol `name` in /proc/kallsyms, 0 if none. */
static __u64 addr_of(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], sym[256], type;
	unsigned long long a;
	__u64 found = 0;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name) &&
		    strchr("tT", type))
			found = a;
	fclose(f);
	return found;
}

static void test_names(void **state)
{
	__u64 a = addr_of("vfs_read");
	char buf[128];

	(void)state;
	assert_int_equal(ksyms_load(), 0);
	assert_true(a != 0);
	assert_string_equal(ksyms_name(a, buf, sizeof(buf)), "vfs_read+0x0");
	assert_string_equal(ksyms_name(a + 0x10, buf, sizeof(buf)), "vfs_read+0x10");
	/* Below every symbol: the address itself. */
	assert_string_equal(ksyms_name(0x10, buf, sizeof(buf)), "0x10");
	/* Loaded once: the second call answers the same. */
	assert_int_equal(ksyms_load(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
