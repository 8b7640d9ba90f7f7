// SPDX-License-Identifier: GPL-2.0
/* Facts read from BTF: a per-CPU variable's offset in .data..percpu, and a
 * member's offset where it sits in anonymous members (x86-64's struct
 * pcpu_hot, Linux 6.2 to 6.14), on BTF built here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <bpf/btf.h>
#include "lib/kbtf.h"

/*
 * struct pcpu_hot {
 *	union {
 *		struct { void *current_task; int preempt_count; };
 *		char pad[64];
 *	};
 * };
 * int __preempt_count, pcpu_hot, this_cpu_off in .data..percpu at 0x40,
 * 0x1000, 0x19a18.
 */
static struct btf *sample(void)
{
	struct btf *b = btf__new_empty();
	int i32, ptr, chr, arr, inner, uni, hot, v1, v2, v3, sec;

	assert_non_null(b);
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	ptr = btf__add_ptr(b, 0);
	arr = btf__add_array(b, i32, chr, 64);
	inner = btf__add_struct(b, NULL, 16);
	btf__add_field(b, "current_task", ptr, 0, 0);
	btf__add_field(b, "preempt_count", i32, 64, 0);
	uni = btf__add_union(b, NULL, 64);
	btf__add_field(b, NULL, inner, 0, 0);
	btf__add_field(b, "pad", arr, 0, 0);
	hot = btf__add_struct(b, "pcpu_hot", 64);
	btf__add_field(b, NULL, uni, 0, 0);
	v1 = btf__add_var(b, "__preempt_count", BTF_VAR_GLOBAL_ALLOCATED, i32);
	v2 = btf__add_var(b, "pcpu_hot", BTF_VAR_GLOBAL_ALLOCATED, hot);
	v3 = btf__add_var(b, "this_cpu_off", BTF_VAR_GLOBAL_ALLOCATED, i32);
	sec = btf__add_datasec(b, ".data..percpu", 0x20000);
	assert_true(v1 > 0 && v2 > 0 && v3 > 0 && sec > 0);
	btf__add_datasec_var_info(b, v1, 0x40, 4);
	btf__add_datasec_var_info(b, v2, 0x1000, 64);
	btf__add_datasec_var_info(b, v3, 0x19a18, 8);
	return b;
}

static void test_percpu_offsets(void **state)
{
	struct btf *b = sample();

	(void)state;
	assert_int_equal(kbtf_percpu_offset(b, "__preempt_count"), 0x40);
	assert_int_equal(kbtf_percpu_offset(b, "pcpu_hot"), 0x1000);
	assert_int_equal(kbtf_percpu_offset(b, "this_cpu_off"), 0x19a18);
	assert_int_equal(kbtf_percpu_offset(b, "runqueues"), -1);
	btf__free(b);
}

static void test_member_in_anonymous_members(void **state)
{
	struct btf *b = sample();

	(void)state;
	assert_int_equal(kbtf_member_offset(b, "pcpu_hot", "preempt_count"), 8);
	assert_int_equal(kbtf_member_offset(b, "pcpu_hot", "pad"), 0);
	assert_int_equal(kbtf_member_offset(b, "pcpu_hot", "cpu_number"), -1);
	assert_int_equal(kbtf_member_offset(b, "task_struct", "pid"), -1);
	btf__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percpu_offsets),
		cmocka_unit_test(test_member_in_anonymous_members),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
