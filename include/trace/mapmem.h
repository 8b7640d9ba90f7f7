/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel memory of a loaded BPF object's maps, as the kernel charges it:
 * what `iolens doctor` and -v say each command takes. */
#ifndef IOLENS_MAPMEM_H
#define IOLENS_MAPMEM_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct bpf_map;
struct bpf_object;

/* The maps of an opened object made, with no program loaded, and their
 * memory: what the object takes as configured, where its programs need
 * not (or could not) load.  0 on failure, with errno. */
__u64 mapmem_of_maps(struct bpf_object *obj);

/* The same of one map's fd. */
__u64 mapmem_of_fd(int fd);

/* With -v: one line on stderr for `cmd` with the total and its largest
 * maps; `extra` (NULL: none) names `extra_bytes` of maps made outside the
 * object (the block tracer's rings). */
void mapmem_say(const char *cmd, const char *what, const struct bpf_object *obj,
		const char *extra, __u64 extra_bytes);

/* An mmapable array map's values (BPF_F_MMAPABLE), mapped whole: `len`
 * bytes to munmap.  NULL with *err set to -errno on failure. */
void *mapmem_mmap(const struct bpf_map *m, int prot, size_t *len, int *err);

#endif
