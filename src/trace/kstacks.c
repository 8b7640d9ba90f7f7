// SPDX-License-Identifier: GPL-2.0
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "lib/ksyms.h"
#include "trace/kstacks.h"

struct kstacks {
	int fd;
	pthread_mutex_t lock;	/* taken to add a stack, never to read one */
	struct kstack *by_id[IOLENS_STACKS_MAX];
};

struct kstacks *kstacks_new(int fd)
{
	struct kstacks *ks = calloc(1, sizeof(*ks));

	if (!ks)
		return NULL;
	ks->fd = fd;
	pthread_mutex_init(&ks->lock, NULL);
	return ks;
}

/* Stack `id` read from the map and named; NULL if the map has none. */
static struct kstack *read_stack(int fd, __u32 id)
{
	__u64 ips[IOLENS_STACK_DEPTH] = { 0 };
	struct kstack *k;
	char sym[512];
	int first;

	if (fd < 0 || bpf_map_lookup_elem(fd, &id, ips))
		return NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	first = ksyms_stack_first(ips, IOLENS_STACK_DEPTH);
	for (int i = first; i < IOLENS_STACK_DEPTH && ips[i]; i++)
		snprintf(k->frame[k->n++], KSTACK_NAME, "%s",
			 ksyms_name(ips[i], sym, sizeof(sym)));
	return k;
}

const struct kstack *kstacks_get(struct kstacks *ks, __u32 stack)
{
	struct kstack *k;
	__u32 id = stack - 1;

	if (!ks || kstack_unknown(stack) || id >= IOLENS_STACKS_MAX)
		return NULL;
	/* A stack id never names another stack while the map lives (no
	 * BPF_F_REUSE_STACKID, nothing deleted): once named, it is kept. */
	k = __atomic_load_n(&ks->by_id[id], __ATOMIC_ACQUIRE);
	if (k)
		return k;
	pthread_mutex_lock(&ks->lock);
	k = ks->by_id[id];
	if (!k) {
		k = read_stack(ks->fd, id);
		if (k)
			__atomic_store_n(&ks->by_id[id], k, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ks->lock);
	return k;
}

int kstacks_put(struct kstacks *ks, __u32 stack, const struct kstack *k)
{
	__u32 id = stack - 1;
	struct kstack *c;

	if (kstack_unknown(stack) || id >= IOLENS_STACKS_MAX)
		return -1;
	c = malloc(sizeof(*c));
	if (!c)
		return -1;
	memcpy(c, k, sizeof(*c));
	free(ks->by_id[id]);
	ks->by_id[id] = c;
	return 0;
}

void kstacks_free(struct kstacks *ks)
{
	if (!ks)
		return;
	for (int i = 0; i < IOLENS_STACKS_MAX; i++)
		free(ks->by_id[i]);
	pthread_mutex_destroy(&ks->lock);
	free(ks);
}
