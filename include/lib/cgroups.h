/* SPDX-License-Identifier: GPL-2.0 */
/* cgroup ids (the cgroup directory's inode number) to paths. */
#ifndef IOLENS_CGROUPS_H
#define IOLENS_CGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

/* Path of cgroup `id` in hierarchy `hier` (0 = cgroup2, else a v1
 * hierarchy number as in /proc/cgroups), cached: "/system.slice/x.service"
 * for cgroup2, "blkio:/x" for v1.  NULL when the id is 0 or not known: the
 * hierarchy is not mounted, the cgroup no longer exists, or offline. */
const char *cgroup_path(unsigned int hier, __u64 id);

/* The cgroup2 id of PATH ("/system.slice/x.service", relative to the
 * cgroup2 mount) and its level (its number of components: what
 * bpf_get_current_ancestor_cgroup_id() takes); 0, or -ENOENT if cgroup2 is
 * not mounted or has no such cgroup. */
int cgroup_v2_id(const char *path, __u64 *id, __u32 *level);

/* Whether cgroup2's root hands `controller` ("io", "memory") to the
 * cgroups below it (its cgroup.subtree_control). */
bool cgroup_v2_enabled(const char *controller);

/* NULL where the kernel charges writeback to the cgroup that dirtied the
 * pages (cgroup2 with the io and memory controllers on); else the line
 * that says it charges the root. */
const char *cgroup_writeback_note(void);

/*
 * Whose subtree cgroup PATH (as cgroup_path() gives it) lies in: the
 * owner of the first folder on its way that is not root's -- a subtree
 * systemd or a runtime delegated to that user (user@UID.service, a
 * rootless container's), where the user names every cgroup below -- and
 * in *at the length of PATH up to that folder's end.  Only root makes
 * cgroups elsewhere.  true if there is one; false if every folder is
 * root's, or the path cannot be looked at (offline, gone, unmounted).
 */
bool cgroup_delegated(const char *path, uid_t *uid, size_t *at);

/* Names cgroup `id` of hierarchy `hier` (from a trace file); 0, or -1 if
 * out of memory.  A trace may name any number: past 65,536 cgroups or
 * 8 MiB of names the others stay unnamed, counted by cgroup_unnamed(). */
int cgroup_set(unsigned int hier, __u64 id, const char *path);
__u64 cgroup_unnamed(void);

/* From now on cgroup_path() only knows what cgroup_set() told it: the
 * cgroups of this machine are not those of a trace recorded elsewhere. */
void cgroup_offline(void);

#endif
