// SPDX-License-Identifier: GPL-2.0
/* The split histograms of lat_hists, read as differences (trace/agg_keyed.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "lib/vec.h"
#include "trace/agg_keyed.h"

/* A split histogram and its per-map counts at the last read. */
struct keyed {
	struct agg_keyed out;
	__u64 prev_sum;
	__u32 prev[HIST_BUCKETS];
};

struct keyed_set {
	struct keyed **keyed;		/* sorted by key */
	int nkeyed;
	struct iolens_lat_hist kbuf;	/* one lookup of lat_hists */
};

struct keyed_set *keyed_set_new(void)
{
	return calloc(1, sizeof(struct keyed_set));
}

void keyed_set_free(struct keyed_set *ks)
{
	if (!ks)
		return;
	for (int i = 0; i < ks->nkeyed; i++)
		free(ks->keyed[i]);
	free(ks->keyed);
	free(ks);
}

static int keyed_cmp(const struct iolens_lat_key *a,
		     const struct iolens_lat_key *b)
{
	return memcmp(a, b, sizeof(*a));
}

/* The entry of `key`, added in order if new; NULL if out of memory. */
static struct keyed *keyed_get(struct keyed_set *ks,
			       const struct iolens_lat_key *key)
{
	int lo = 0, hi = ks->nkeyed, c;
	struct keyed *k, **v;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		c = keyed_cmp(&ks->keyed[mid]->out.key, key);
		if (!c)
			return ks->keyed[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	k = calloc(1, sizeof(*k));
	if (!k || !vec_add(&ks->keyed, &ks->nkeyed, sizeof(*ks->keyed))) {
		free(k);
		return NULL;
	}
	v = ks->keyed;
	memmove(v + lo + 1, v + lo, (ks->nkeyed - 1 - lo) * sizeof(*v));
	v[lo] = k;
	k->out.key = *key;
	return k;
}

/* Differences of every lat_hists entry since the last read (the map only
 * grows: entries are never deleted, counts never reset). */
int keyed_set_read(struct keyed_set *ks, int fd, int stacks_fd,
		   const volatile struct iolens_dev_slot *slots, int nslots)
{
	struct iolens_lat_key key, next;
	struct keyed *k;
	bool first = true;

	for (int i = 0; i < ks->nkeyed; i++) {
		memset(ks->keyed[i]->out.hist, 0, sizeof(ks->keyed[i]->out.hist));
		ks->keyed[i]->out.sum = 0;
	}
	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &ks->kbuf))
			continue;	/* cannot happen: nothing deletes */
		k = keyed_get(ks, &key);
		if (!k)
			return -ENOMEM;
		memcpy(k->out.comm, ks->kbuf.comm, sizeof(k->out.comm));
		/* A stack's frames, once: without BPF_F_REUSE_STACKID its
		 * id is never given to another. */
		if (key.stack && key.stack != IOLENS_STACK_LOST && !k->out.stack[0]) {
			__u32 id = key.stack - 1;

			if (bpf_map_lookup_elem(stacks_fd, &id, k->out.stack))
				memset(k->out.stack, 0, sizeof(k->out.stack));
		}
		if (key.slot < (__u32)nslots)
			k->out.dev = slots[key.slot].dev;
		k->out.sum = ks->kbuf.sum - k->prev_sum;
		k->prev_sum = ks->kbuf.sum;
		for (__u32 b = 0; b < HIST_BUCKETS; b++) {
			k->out.hist[b] = (__u32)(ks->kbuf.b[b] - k->prev[b]);
			k->prev[b] = ks->kbuf.b[b];
		}
	}
	return 0;
}

int keyed_set_count(const struct keyed_set *ks)
{
	return ks->nkeyed;
}

const struct agg_keyed *keyed_set_get(const struct keyed_set *ks, int i)
{
	return &ks->keyed[i]->out;
}
