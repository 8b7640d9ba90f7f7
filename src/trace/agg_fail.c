// SPDX-License-Identifier: GPL-2.0
/* The failures map read as totals and differences (trace/agg_fail.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "lib/vec.h"
#include "trace/agg_fail.h"

struct fail_set {
	struct agg_failure *v;
	int n;
};

struct fail_set *fail_set_new(void)
{
	return calloc(1, sizeof(struct fail_set));
}

void fail_set_free(struct fail_set *fs)
{
	if (!fs)
		return;
	free(fs->v);
	free(fs);
}

int fail_set_read(struct fail_set *fs, int fd,
		  const volatile struct iolens_dev_slot *slots, int nslots)
{
	struct iolens_fail_key key, next;
	struct iolens_fail_count now;
	struct agg_failure *f;
	void *prev = NULL;
	bool added;

	for (int i = 0; i < fs->n; i++)
		memset(&fs->v[i].n, 0, sizeof(fs->v[i].n));
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &now))
			continue;	/* cannot happen: nothing deletes */
		/* Failures are few (a status or two per device): a scan. */
		f = vec_get_by(&fs->v, &fs->n, key, &key, &added);
		if (!f)
			return -ENOMEM;
		if (key.slot < nslots)
			f->dev = slots[key.slot].dev;
		f->n.ios = now.ios - f->total.ios;
		f->n.bytes = now.bytes - f->total.bytes;
		f->n.ns = now.ns - f->total.ns;
		f->n.timed = now.timed - f->total.timed;
		f->total = now;
	}
	return 0;
}

int fail_set_count(const struct fail_set *fs)
{
	return fs->n;
}

const struct agg_failure *fail_set_get(const struct fail_set *fs, int i)
{
	return &fs->v[i];
}
