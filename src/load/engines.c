// SPDX-License-Identifier: GPL-2.0
/*
 * The engines of iolens load, looked up by fio's --ioengine name.  Each is
 * one file of engines/ defining `load_engine_NAME`; adding one is that file
 * and its row in LOAD_ENGINES below.
 */
#include <stdio.h>
#include <string.h>
#include "load/engine.h"

/* Rows in the order --help lists them; the first is the default. */
#define LOAD_ENGINES(X) \
	X(psync) X(sync) X(vsync) X(pvsync) X(pvsync2) X(posixaio) \
	X(libaio) X(io_uring) X(mmap) X(null)

#define DECLARE(name) extern const struct load_engine load_engine_##name;
LOAD_ENGINES(DECLARE)
#define ROW(name) &load_engine_##name,
static const struct load_engine *const engines[] = { LOAD_ENGINES(ROW) };
#define NENGINES (sizeof(engines) / sizeof(engines[0]))

const struct load_engine *load_engine_find(const char *name)
{
	if (!name)
		return engines[0];
	for (size_t i = 0; i < NENGINES; i++)
		if (!strcmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}

const char *load_engines_text(void)
{
	static char msg[256];
	size_t n = snprintf(msg, sizeof(msg), "want one of:");

	for (size_t i = 0; i < NENGINES && n < sizeof(msg); i++)
		n += snprintf(msg + n, sizeof(msg) - n, " %s", engines[i]->name);
	return msg;
}

void load_engines_help(FILE *f)
{
	for (size_t i = 0; i < NENGINES; i++)
		fprintf(f, "  %-26s %s\n", engines[i]->name, engines[i]->help);
}
