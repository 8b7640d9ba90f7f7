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

long kbtf_percpu_offset(const struct btf *btf, const char *name)
{
	int sec = btf__find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC);
	const struct btf_var_secinfo *v;
	const struct btf_type *t;

	if (sec < 0)
		return -1;
	t = btf__type_by_id(btf, sec);
	v = btf_var_secinfos(t);
	for (int i = 0; i < btf_vlen(t); i++, v++) {
		const struct btf_type *var = btf__type_by_id(btf, v->type);

		if (var && !strcmp(btf__name_by_offset(btf, var->name_off), name))
			return v->offset;
	}
	return -1;
}

/* Bit offset of `member` in struct or union t, looking into its anonymous
 * members (struct pcpu_hot's are in an anonymous union); -1 if none. */
static long member_bits(const struct btf *btf, const struct btf_type *t,
			const char *member, int depth)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t) && depth < 4; i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);
		const struct btf_type *mt;
		long in;

		if (name && *name) {
			if (!strcmp(name, member))
				return btf_member_bit_offset(t, i);
			continue;
		}
		mt = btf__type_by_id(btf, m->type);
		if (mt && btf_is_composite(mt) &&
		    (in = member_bits(btf, mt, member, depth + 1)) >= 0)
			return btf_member_bit_offset(t, i) + in;
	}
	return -1;
}

long kbtf_member_offset(const struct btf *btf, const char *type, const char *member)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	long bits;

	if (id < 0)
		return -1;
	bits = member_bits(btf, btf__type_by_id(btf, id), member, 0);
	return bits < 0 ? -1 : bits / 8;
}
