// SPDX-License-Identifier: GPL-2.0
/* The command table, gathered from the rows each cmd_X.c defines. */
#include <stdlib.h>
#include "cli/commands.h"

/* The bounds of the section, from the linker. */
extern const struct cli_command *const __start_iolens_commands[];
extern const struct cli_command *const __stop_iolens_commands[];

#define MAX_COMMANDS 32

static int by_order(const void *a, const void *b)
{
	const struct cli_command *x = a, *y = b;

	return (x->cli->order > y->cli->order) - (x->cli->order < y->cli->order);
}

const struct cli_command *cli_commands(int *n)
{
	static struct cli_command table[MAX_COMMANDS];
	static int ntable = -1;

	if (ntable < 0) {
		const struct cli_command *const *p;

		ntable = 0;
		for (p = __start_iolens_commands; p < __stop_iolens_commands &&
		     ntable < MAX_COMMANDS; p++)
			table[ntable++] = **p;
		qsort(table, ntable, sizeof(table[0]), by_order);
	}
	*n = ntable;
	return table;
}
