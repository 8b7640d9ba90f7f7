// SPDX-License-Identifier: GPL-2.0
/* Kernel memory of loaded BPF maps (trace/mapmem.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/libbpf.h>
#include "lib/log.h"
#include "trace/fdlimit.h"
#include "trace/mapmem.h"

/* "memlock:\tN" of a map's fd: what the kernel charges for it (since Linux
 * 6.4 its real use, bpf_map_memory_usage(); before, an estimate from its
 * sizes), 0 if unknown. */
__u64 mapmem_of_fd(int fd)
{
	char path[64], line[128];
	__u64 v = 0;
	FILE *f;

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "memlock:", 8)) {
			v = strtoull(line + 8, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* Sum of its maps' "memlock" in /proc/self/fdinfo (bpftool's
 * bytes_memlock): 0 if not loaded. */
static __u64 mapmem_of(const struct bpf_object *obj)
{
	const struct bpf_map *m;
	__u64 sum = 0;

	bpf_object__for_each_map(m, obj)
		sum += mapmem_of_fd(bpf_map__fd(m));
	return sum;
}

__u64 mapmem_of_maps(struct bpf_object *obj)
{
	struct bpf_program *p;
	int err;

	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, false);
	/* Past the limit the load fails with EINVAL: fdlimit_refused()
	 * tells the caller why. */
	err = fdlimit_ensure(NULL, obj, 0);
	err = err ?: bpf_object__load(obj);
	if (err) {
		errno = -err;
		return 0;
	}
	return mapmem_of(obj);
}

/* Keeps the three largest in top[]/size[], largest first. */
static void rank(const char **top, __u64 *size, const char *name, __u64 v)
{
	for (int i = 0; i < 3; i++)
		if (v > size[i]) {
			memmove(&top[i + 1], &top[i], (2 - i) * sizeof(top[0]));
			memmove(&size[i + 1], &size[i], (2 - i) * sizeof(size[0]));
			top[i] = name;
			size[i] = v;
			return;
		}
}

void mapmem_say(const char *cmd, const char *what, const struct bpf_object *obj,
		const char *extra, __u64 extra_bytes)
{
	const char *top[3] = { NULL };
	__u64 size[3] = { 0 };
	const struct bpf_map *m;

	if (!log_verbose)
		return;
	bpf_object__for_each_map(m, obj)
		rank(top, size, bpf_map__name(m), mapmem_of_fd(bpf_map__fd(m)));
	if (extra)
		rank(top, size, extra, extra_bytes);
	fprintf(stderr, "iolens %s: kernel memory of %s: %.1f MiB", cmd, what,
		(mapmem_of(obj) + extra_bytes) / 1048576.0);
	for (int i = 0; i < 3 && top[i]; i++)
		fprintf(stderr, "%s %s %.1f MiB", i ? "," : " (largest:", top[i],
			size[i] / 1048576.0);
	fprintf(stderr, "%s\n", top[0] ? ")" : "");
}

void *mapmem_mmap(const struct bpf_map *m, int prot, size_t *len, int *err)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	/* An array's values are 8-byte aligned: value_size rounded up. */
	*len = ((size_t)bpf_map__max_entries(m) * ((bpf_map__value_size(m) + 7) & ~7U) +
		page - 1) & ~(size_t)(page - 1);
	p = mmap(NULL, *len, prot, MAP_SHARED, bpf_map__fd(m), 0);
	if (p == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	return p;
}
