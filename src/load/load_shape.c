// SPDX-License-Identifier: GPL-2.0
/*
 * The shape of a job's I/O (load/opts.h): which directions its --rw issues,
 * fio's bsrange and bssplit read from their text, and the smallest and
 * largest block size and the alignment the job issues with.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "load/load.h"
#include "load/opts.h"
#include "lib/parse.h"

int load_bs_parse_range(const char *s, struct load_bs *b, const char **err)
{
	char lo[64];
	size_t n = strcspn(s, "-:");

	*err = "want MIN-MAX, e.g. 4k-64k";
	if (!s[n] || n >= sizeof(lo))
		return -1;
	snprintf(lo, sizeof(lo), "%.*s", (int)n, s);
	if (parse_size(lo, &b->min) || parse_size(s + n + 1, &b->max))
		return -1;
	*err = "MIN must be more than 0 and not above MAX";
	if (!b->min || b->min > b->max)
		return -1;
	b->nsplit = 0;
	return 0;
}

int load_bs_parse_split(char *s, struct load_bs *b, const char **err)
{
	unsigned int sum = 0, blank = 0, first_blank = ~0U;
	char *ent;

	b->nsplit = 0;
	b->min = ~0ULL;
	b->max = 0;
	while ((ent = strsep(&s, ":"))) {
		struct load_split *sp = &b->split[b->nsplit];
		char *pct = strchr(ent, '/'), *end;
		unsigned long v = 0;

		*err = "want SIZE/PERCENT entries separated by ':'";
		if (b->nsplit == LOAD_MAX_SPLIT) {
			*err = "more than 64 entries";
			return -1;
		}
		if (pct)
			*pct++ = '\0';
		if (parse_size(ent, &sp->bs) || !sp->bs)
			return -1;
		if (pct && *pct) {
			errno = 0;
			v = strtoul(pct, &end, 10);
			if (errno || *end || !isdigit((unsigned char)*pct) || v > 100) {
				*err = "a share is a percentage, 0 to 100";
				return -1;
			}
		}
		if (!v && first_blank == ~0U)
			first_blank = b->nsplit;
		blank += !v;
		sum += v;
		sp->perc = v;
		if (sp->bs < b->min)
			b->min = sp->bs;
		if (sp->bs > b->max)
			b->max = sp->bs;
		b->nsplit++;
	}
	if (sum > 100 || (!blank && sum != 100)) {
		*err = "the shares must add up to 100";
		return -1;
	}
	for (unsigned int i = 0; blank && i < b->nsplit; i++) {
		if (!b->split[i].perc)
			b->split[i].perc = (100 - sum) / blank +
				(i == first_blank ? (100 - sum) % blank : 0);
	}
	return 0;
}

__u64 load_bs_min(const struct load_job_opts *o)
{
	__u64 v = ~0ULL;

	for (int d = 0; d < LOAD_DIRS; d++) {
		if (load_dir_used(o, d) && o->bsz[d].min < v)
			v = o->bsz[d].min;
	}
	return v;
}

__u64 load_bs_max(const struct load_job_opts *o)
{
	__u64 v = 0;

	for (int d = 0; d < LOAD_DIRS; d++) {
		if (load_dir_used(o, d) && o->bsz[d].max > v)
			v = o->bsz[d].max;
	}
	return v;
}

__u64 load_blockalign(const struct load_job_opts *o, int dir)
{
	return o->blockalign[dir] ? o->blockalign[dir] : o->bsz[dir].min;
}

bool load_dir_used(const struct load_job_opts *o, int dir)
{
	switch (o->rw) {
	case LOAD_RW_READ:
	case LOAD_RW_RANDREAD:
		return dir == LOAD_READ;
	case LOAD_RW_WRITE:
	case LOAD_RW_RANDWRITE:
		return dir == LOAD_WRITE;
	case LOAD_RW_TRIM:
	case LOAD_RW_RANDTRIM:
		return dir == LOAD_TRIM;
	default:
		return dir == LOAD_READ ? o->rwmixread > 0 :
		       dir == LOAD_WRITE ? o->rwmixread < 100 : false;
	}
}

bool load_rw_random(int rw)
{
	return rw == LOAD_RW_RANDREAD || rw == LOAD_RW_RANDWRITE ||
	       rw == LOAD_RW_RANDRW || rw == LOAD_RW_RANDTRIM;
}
