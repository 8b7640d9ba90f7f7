// SPDX-License-Identifier: GPL-2.0
/* The label sets of the aggregation's `label_counts`, summed over the
 * CPUs (trace/agg_labels.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/vec.h"
#include "trace/agg_labels.h"

int agg_labels_read(int fd, const volatile struct iolens_dev_slot *slots,
		    int nslots, struct stat_label **out)
{
	int ncpu = libbpf_num_possible_cpus(), n = 0;
	struct iolens_label_key key, next;
	struct iolens_label_count *cpus;
	struct stat_label *v = NULL, *l;
	void *prev = NULL;
	bool twins = false;

	if (ncpu < 0)
		return ncpu;
	cpus = calloc(ncpu, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		/* Sets are only ever added, never deleted. */
		if (key.slot >= nslots || bpf_map_lookup_elem(fd, &key, cpus))
			continue;
		/* What a rescue program counted (bpf/agg.bpf.c's struct
		 * first_mark) is its set's: rare, so the sets are searched
		 * only once one such was seen. */
		twins |= key.rescue;
		key.rescue = 0;
		l = twins ? vec_find(v, n, sizeof(*l), offsetof(struct stat_label, key),
				     &key, sizeof(key)) : NULL;
		if (!l)
			l = vec_add(&v, &n, sizeof(*l));
		if (!l) {
			free(v);
			free(cpus);
			return -ENOMEM;
		}
		l->key = key;
		l->dev = slots[key.slot].dev;
		for (int c = 0; c < ncpu; c++) {
			l->n.ios += cpus[c].ios;
			l->n.bytes += cpus[c].bytes;
		}
	}
	free(cpus);
	*out = v;
	return n;
}
