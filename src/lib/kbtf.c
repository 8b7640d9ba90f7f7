// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <bpf/btf.h>
#include "lib/kbtf.h"

static int enum_find(const struct btf_type *t, const struct btf *btf,
		     const char *name)
{
	const struct btf_enum *e = btf_enum(t);

	for (int i = 0; i < btf_vlen(t); i++, e++) {
		if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
			return e->val;
	}
	return -1;
}

int kbtf_enum_value(const struct btf *btf, const char *type, const char *name)
{
	int id, n, v;

	if (type) {
		id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
		return id < 0 ? -1 : enum_find(btf__type_by_id(btf, id), btf, name);
	}
	n = btf__type_cnt(btf);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_enum(t) && (v = enum_find(t, btf, name)) >= 0)
			return v;
	}
	return -1;
}
