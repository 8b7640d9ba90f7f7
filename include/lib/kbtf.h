/* SPDX-License-Identifier: GPL-2.0 */
/* Facts about the running kernel read from its BTF. */
#ifndef IOLENS_KBTF_H
#define IOLENS_KBTF_H

struct btf;

/* Value of enumerator `name` of enum `type` in `btf`; `type` NULL searches
 * every enum, anonymous ones included.  -1 if there is none. */
int kbtf_enum_value(const struct btf *btf, const char *type, const char *name);

/* Offset of per-CPU variable `name` in the kernel's .data..percpu section,
 * as BTF's DATASEC gives it; -1 if BTF has none. */
long kbtf_percpu_offset(const struct btf *btf, const char *name);

/* Byte offset of member `member` of struct `type`; -1 if there is none. */
long kbtf_member_offset(const struct btf *btf, const char *type, const char *member);

#endif
