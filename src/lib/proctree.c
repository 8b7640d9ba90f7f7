// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/proctree.h"
#include "lib/procstat.h"
#include "lib/vec.h"

struct proctree_seen {
	__u32 tgid;
	bool in;
	bool gone;	/* at the last proctree_forget_gone() */
};

void proctree_init(struct proctree *t, const int *roots, int nroots)
{
	memset(t, 0, sizeof(*t));
	t->roots = roots;
	t->nroots = nroots;
}

/* The state letter and parent of pid; false if it is gone. */
static bool stat_of(__u32 pid, char *state, __u32 *ppid)
{
	struct procstat ps;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if (procstat_read(path, &ps))
		return false;
	*state = ps.state;
	*ppid = ps.ppid;
	return true;
}

static __u32 parent_of(__u32 pid)
{
	__u32 ppid;
	char state;

	return stat_of(pid, &state, &ppid) ? ppid : 0;
}

static bool is_root(const struct proctree *t, __u32 tgid)
{
	for (int i = 0; i < t->nroots; i++)
		if ((__u32)t->roots[i] == tgid)
			return true;
	return false;
}

static bool below_root(const struct proctree *t, __u32 tgid)
{
	/* Bounded: a chain longer than this is not a benchmark's. */
	for (int depth = 0; tgid > 1 && depth < 64; depth++) {
		if (is_root(t, tgid))
			return true;
		tgid = parent_of(tgid);
	}
	return false;
}

static const struct proctree_seen *seen_of(const struct proctree *t, __u32 tgid)
{
	for (int i = t->nseen - 1; i >= 0; i--)
		if (t->seen[i].tgid == tgid)
			return &t->seen[i];
	return NULL;
}

static bool remember(struct proctree *t, __u32 tgid, bool in)
{
	struct proctree_seen *v = vec_add(&t->seen, &t->nseen, sizeof(*v));

	if (v)
		*v = (struct proctree_seen){ .tgid = tgid, .in = in };
	return in;
}

bool proctree_has(struct proctree *t, __u32 tgid)
{
	const struct proctree_seen *s = seen_of(t, tgid);

	return s ? s->in : remember(t, tgid, tgid && below_root(t, tgid));
}

int proctree_judge(struct proctree *t, __u32 tgid)
{
	const struct proctree_seen *s = seen_of(t, tgid);
	__u32 ppid;
	char state;

	if (s)
		return s->in;
	if (!tgid || is_root(t, tgid))
		return remember(t, tgid, tgid != 0);
	/* Its parent read once: a process gone since is not judged (and
	 * not remembered), one whose parent is gone is no longer below. */
	if (!stat_of(tgid, &state, &ppid))
		return -1;
	return remember(t, tgid, below_root(t, ppid));
}

bool proctree_has_gone(struct proctree *t, __u32 tgid, __u32 ppid)
{
	const struct proctree_seen *s = seen_of(t, tgid);

	if (s)
		return s->in;
	if (!tgid || parent_of(tgid))
		return proctree_has(t, tgid);
	/* Gone: a root itself, or a child of one of ours. */
	return remember(t, tgid, below_root(t, tgid) ||
			(ppid && proctree_has(t, ppid)));
}

void proctree_forget_gone(struct proctree *t)
{
	int keep = 0;

	for (int i = 0; i < t->nseen; i++) {
		struct proctree_seen *s = &t->seen[i];
		bool alive = !s->tgid || !kill((pid_t)s->tgid, 0) || errno == EPERM;

		if (alive || !s->gone) {
			s->gone = !alive;
			t->seen[keep++] = *s;
		}
	}
	t->nseen = keep;
}

bool proctree_alive(const struct proctree *t)
{
	__u32 ppid;
	char state;

	/* A zombie has exited: its parent just has not reaped it yet. */
	for (int i = 0; i < t->nroots; i++)
		if (stat_of(t->roots[i], &state, &ppid) && state != 'Z' && state != 'X')
			return true;
	return false;
}

void proctree_free(struct proctree *t)
{
	free(t->seen);
	t->seen = NULL;
	t->nseen = 0;
}
