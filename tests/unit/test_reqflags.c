// SPDX-License-Identifier: GPL-2.0
/* Kernel cmd_flags to iolens' op and flags, and their names: op names,
 * flag lists, blktrace's rwbs and blk_status_t names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>
#include <bpf/btf.h>
#include "trace/reqflags.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The kernel's numbers the tests build cmd_flags from: read here from BTF
 * without the code under test, or the Linux 6.18 values reqflags.c falls
 * back to when it found no BTF either. */
static const struct kop {
	const char *kname;
	unsigned int op;
	int fallback;
} kops[] = {
	{ "REQ_OP_READ",           IOLENS_OP_READ,            0 },
	{ "REQ_OP_WRITE",          IOLENS_OP_WRITE,           1 },
	{ "REQ_OP_FLUSH",          IOLENS_OP_FLUSH,           2 },
	{ "REQ_OP_DISCARD",        IOLENS_OP_DISCARD,         3 },
	{ "REQ_OP_SECURE_ERASE",   IOLENS_OP_SECURE_ERASE,    5 },
	{ "REQ_OP_ZONE_APPEND",    IOLENS_OP_ZONE_APPEND,     7 },
	{ "REQ_OP_WRITE_ZEROES",   IOLENS_OP_WRITE_ZEROES,    9 },
	{ "REQ_OP_ZONE_OPEN",      IOLENS_OP_ZONE_OPEN,      11 },
	{ "REQ_OP_ZONE_CLOSE",     IOLENS_OP_ZONE_CLOSE,     13 },
	{ "REQ_OP_ZONE_FINISH",    IOLENS_OP_ZONE_FINISH,    15 },
	{ "REQ_OP_ZONE_RESET",     IOLENS_OP_ZONE_RESET,     17 },
	{ "REQ_OP_ZONE_RESET_ALL", IOLENS_OP_ZONE_RESET_ALL, 19 },
	{ "REQ_OP_DRV_IN",         IOLENS_OP_DRV,            34 },
	{ "REQ_OP_DRV_OUT",        IOLENS_OP_DRV,            35 },
};

static const struct kflag {
	const char *kname;
	unsigned int flag;
	int fallback;
} kflags[] = {
	{ "__REQ_SYNC",       IOLENS_F_SYNC,       11 },
	{ "__REQ_META",       IOLENS_F_META,       12 },
	{ "__REQ_PRIO",       IOLENS_F_PRIO,       13 },
	{ "__REQ_NOMERGE",    IOLENS_F_NOMERGE,    14 },
	{ "__REQ_IDLE",       IOLENS_F_IDLE,       15 },
	{ "__REQ_FUA",        IOLENS_F_FUA,        17 },
	{ "__REQ_PREFLUSH",   IOLENS_F_PREFLUSH,   18 },
	{ "__REQ_RAHEAD",     IOLENS_F_RAHEAD,     19 },
	{ "__REQ_BACKGROUND", IOLENS_F_BACKGROUND, 20 },
	{ "__REQ_NOWAIT",     IOLENS_F_NOWAIT,     21 },
	{ "__REQ_POLLED",     IOLENS_F_POLLED,     22 },
	{ "__REQ_SWAP",       IOLENS_F_SWAP,       24 },
};

static int op_value[ARRAY_LEN(kops)];
static int flag_bit[ARRAY_LEN(kflags)];

/* Enumerator `name` of enum `type`, -1 if there is none. */
static int btf_enumerator(const struct btf *btf, const char *type,
			  const char *name)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;

	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t); i++, e++) {
		if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
			return e->val;
	}
	return -1;
}

static int group_setup(void **state)
{
	struct btf *btf = NULL;

	(void)state;
	if (!reqflags_init())
		btf = btf__load_vmlinux_btf();
	for (size_t i = 0; i < ARRAY_LEN(kops); i++)
		op_value[i] = btf ? btf_enumerator(btf, "req_op", kops[i].kname) :
				    kops[i].fallback;
	for (size_t i = 0; i < ARRAY_LEN(kflags); i++)
		flag_bit[i] = btf ? btf_enumerator(btf, "req_flag_bits", kflags[i].kname) :
				    kflags[i].fallback;
	btf__free(btf);
	/* Ops and flags in every kernel since 4.10 must be found. */
	for (size_t i = 0; i < 4; i++) {
		if (op_value[i] < 0)
			return -1;
	}
	for (size_t i = 0; i < ARRAY_LEN(kflags); i++) {
		if (!strcmp(kflags[i].kname, "__REQ_SYNC") ||
		    !strcmp(kflags[i].kname, "__REQ_FUA") ||
		    !strcmp(kflags[i].kname, "__REQ_PREFLUSH") ||
		    !strcmp(kflags[i].kname, "__REQ_META")) {
			if (flag_bit[i] < 0)
				return -1;
		}
	}
	return 0;
}

static __u32 kop_of(const char *kname)
{
	for (size_t i = 0; i < ARRAY_LEN(kops); i++) {
		if (!strcmp(kops[i].kname, kname))
			return op_value[i];
	}
	fail_msg("no %s", kname);
	return 0;
}

static __u32 kflag_of(const char *kname)
{
	for (size_t i = 0; i < ARRAY_LEN(kflags); i++) {
		if (!strcmp(kflags[i].kname, kname))
			return 1U << flag_bit[i];
	}
	fail_msg("no %s", kname);
	return 0;
}

static void normalize(struct iolens_rq *rq, __u32 kflags_)
{
	memset(rq, 0, sizeof(*rq));
	rq->op = 0xee;			/* stale values are replaced */
	rq->flags = 0xeeee;
	rq->kflags = kflags_;
	reqflags_normalize(rq);
}

/* Every kernel op this kernel has maps to its iolens op. */
static void test_normalize_ops(void **state)
{
	struct iolens_rq rq;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(kops); i++) {
		if (op_value[i] < 0)
			continue;	/* not in this kernel */
		normalize(&rq, op_value[i]);
		assert_int_equal(rq.op, kops[i].op);
		assert_int_equal(rq.flags, 0);
	}
	/* The op is the low 8 bits only. */
	normalize(&rq, kop_of("REQ_OP_WRITE") | 0x100);
	assert_int_equal(rq.op, IOLENS_OP_WRITE);
}

/* Op numbers no known op has are "other". */
static void test_normalize_unknown_op(void **state)
{
	struct iolens_rq rq;

	(void)state;
	for (__u32 k = 0; k <= KERNEL_REQ_OP_MASK; k++) {
		bool known = false;

		for (size_t i = 0; i < ARRAY_LEN(kops); i++)
			known |= op_value[i] == (int)k;
		normalize(&rq, k);
		if (!known)
			assert_int_equal(rq.op, IOLENS_OP_OTHER);
		else
			assert_int_not_equal(rq.op, IOLENS_OP_OTHER);
	}
}

/* Each kernel flag bit maps to its IOLENS_F_*, whatever the op. */
static void test_normalize_flags(void **state)
{
	struct iolens_rq rq;
	__u32 all = 0;
	__u16 want = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(kflags); i++) {
		if (flag_bit[i] < 0)
			continue;
		normalize(&rq, kop_of("REQ_OP_READ") | 1U << flag_bit[i]);
		assert_int_equal(rq.op, IOLENS_OP_READ);
		assert_int_equal(rq.flags, kflags[i].flag);
		all |= 1U << flag_bit[i];
		want |= kflags[i].flag;
	}
	normalize(&rq, kop_of("REQ_OP_WRITE") | all);
	assert_int_equal(rq.op, IOLENS_OP_WRITE);
	assert_int_equal(rq.flags, want);

	/* A synchronous FUA write with a preflush: blktrace's "FWFS". */
	normalize(&rq, kop_of("REQ_OP_WRITE") | kflag_of("__REQ_SYNC") |
		  kflag_of("__REQ_FUA") | kflag_of("__REQ_PREFLUSH"));
	assert_int_equal(rq.op, IOLENS_OP_WRITE);
	assert_int_equal(rq.flags, IOLENS_F_SYNC | IOLENS_F_FUA | IOLENS_F_PREFLUSH);

	/* Every other bit above the op: no flag. */
	normalize(&rq, ~(all | KERNEL_REQ_OP_MASK) | kop_of("REQ_OP_READ"));
	assert_int_equal(rq.op, IOLENS_OP_READ);
	assert_int_equal(rq.flags, 0);
}

static void test_op_names(void **state)
{
	static const char *const names[IOLENS_OP_NR] = {
		"read", "write", "flush", "discard", "secure-erase",
		"write-zeroes", "zone", "drv", "other", "zone-append",
		"zone-reset", "zone-reset-all", "zone-open", "zone-close",
		"zone-finish",
	};

	(void)state;
	for (unsigned int op = 0; op < IOLENS_OP_NR; op++) {
		assert_string_equal(op_name(op), names[op]);
		if (op != IOLENS_OP_ZONE)
			assert_int_equal(op_parse_mask(names[op]), 1U << op);
	}
	/* "zone": the old catch-all and every named zone op. */
	assert_int_equal(op_parse_mask("zone"), 0x7e00U | 1U << IOLENS_OP_ZONE);
	assert_string_equal(op_name(IOLENS_OP_NR), "?");
	assert_string_equal(op_name(255), "?");
	assert_string_equal(op_name(~0U), "?");
	assert_int_equal(op_parse_mask(""), 0);
	assert_int_equal(op_parse_mask("READ"), 0);
	assert_int_equal(op_parse_mask("rea"), 0);
	assert_int_equal(op_parse_mask("reads"), 0);
	assert_int_equal(op_parse_mask("secure_erase"), 0);
	assert_int_equal(op_parse_mask("zone_reset"), 0);
	assert_int_equal(op_parse_mask("?"), 0);
}

static void test_flags_str(void **state)
{
	char buf[128];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	flags_str(0, buf, sizeof(buf));
	assert_string_equal(buf, "");
	flags_str(IOLENS_F_FUA | IOLENS_F_SYNC, buf, sizeof(buf));
	assert_string_equal(buf, "sync,fua");
	flags_str(IOLENS_F_RAHEAD, buf, sizeof(buf));
	assert_string_equal(buf, "ahead");
	flags_str(IOLENS_F_SWAP | IOLENS_F_BACKGROUND | IOLENS_F_IDLE, buf,
		  sizeof(buf));
	assert_string_equal(buf, "idle,bg,swap");
	flags_str(0xfff, buf, sizeof(buf));
	assert_string_equal(buf, "sync,meta,prio,nomerge,idle,fua,preflush,"
			    "ahead,bg,nowait,polled,swap");
	/* Bits no flag has are left out. */
	flags_str(0xf000 | IOLENS_F_META, buf, sizeof(buf));
	assert_string_equal(buf, "meta");

	/* What does not fit is left out, and the string always ends. */
	memset(buf, 'x', sizeof(buf));
	flags_str(IOLENS_F_SYNC | IOLENS_F_META | IOLENS_F_FUA, buf, 12);
	assert_string_equal(buf, "sync,meta");
	assert_int_equal(buf[12], 'x');
	flags_str(IOLENS_F_SYNC | IOLENS_F_META | IOLENS_F_FUA, buf, 14);
	assert_string_equal(buf, "sync,meta,fua");
	flags_str(IOLENS_F_PREFLUSH, buf, 8);
	assert_string_equal(buf, "");
	flags_str(IOLENS_F_PREFLUSH, buf, 1);
	assert_string_equal(buf, "");
}

static void rwbs(const char *want, unsigned int op, unsigned int flags)
{
	struct iolens_rq rq;
	char buf[16];

	memset(&rq, 0, sizeof(rq));
	rq.op = op;
	rq.flags = flags;
	memset(buf, 'x', sizeof(buf));
	rq_rwbs(&rq, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

/* The letters and order of the kernel's blk_fill_rwbs(). */
static void test_rwbs(void **state)
{
	struct iolens_rq rq;
	char buf[8];

	(void)state;
	rwbs("R", IOLENS_OP_READ, 0);
	rwbs("W", IOLENS_OP_WRITE, 0);
	rwbs("F", IOLENS_OP_FLUSH, 0);
	rwbs("D", IOLENS_OP_DISCARD, 0);
	rwbs("DE", IOLENS_OP_SECURE_ERASE, 0);
	rwbs("N", IOLENS_OP_WRITE_ZEROES, 0);
	rwbs("N", IOLENS_OP_ZONE, 0);
	rwbs("N", IOLENS_OP_ZONE_RESET, 0);
	rwbs("N", IOLENS_OP_ZONE_APPEND, 0);
	rwbs("N", IOLENS_OP_DRV, 0);
	rwbs("N", IOLENS_OP_OTHER, 0);
	rwbs("WS", IOLENS_OP_WRITE, IOLENS_F_SYNC);
	rwbs("RA", IOLENS_OP_READ, IOLENS_F_RAHEAD);
	rwbs("RM", IOLENS_OP_READ, IOLENS_F_META);
	rwbs("FWFS", IOLENS_OP_WRITE, IOLENS_F_PREFLUSH | IOLENS_F_FUA | IOLENS_F_SYNC);
	rwbs("FF", IOLENS_OP_FLUSH, IOLENS_F_PREFLUSH);
	rwbs("FWFASM", IOLENS_OP_WRITE, 0xfff);
	/* Flags with no letter add none. */
	rwbs("W", IOLENS_OP_WRITE, IOLENS_F_IDLE | IOLENS_F_NOMERGE | IOLENS_F_PRIO |
	     IOLENS_F_BACKGROUND | IOLENS_F_NOWAIT | IOLENS_F_POLLED | IOLENS_F_SWAP);

	/* Too small a buffer: empty, never cut. */
	memset(&rq, 0, sizeof(rq));
	rq.op = IOLENS_OP_WRITE;
	rq.flags = IOLENS_F_SYNC;
	memset(buf, 'x', sizeof(buf));
	rq_rwbs(&rq, buf, 3);
	assert_string_equal(buf, "WS");
	rq_rwbs(&rq, buf, 2);
	assert_string_equal(buf, "");
	buf[0] = 'x';
	rq_rwbs(&rq, buf, 0);
	assert_int_equal(buf[0], 'x');
}

static void test_blk_status(void **state)
{
	static const char *const names[] = {
		"ok", "NOTSUPP", "TIMEOUT", "NOSPC", "TRANSPORT", "TARGET",
		"RESV_CONFLICT", "MEDIUM", "PROTECTION", "RESOURCE", "IOERR",
		"DM_REQUEUE", "AGAIN", "DEV_RESOURCE",
	};

	(void)state;
	for (unsigned int s = 0; s < ARRAY_LEN(names); s++)
		assert_string_equal(blk_status_name(s), names[s]);
	assert_string_equal(blk_status_name(200), "status200");
	assert_string_equal(blk_status_name(255), "status255");
	assert_string_equal(blk_status_name(4294967295U), "status4294967295");
}

/* Linux 6.10 removed BLK_STS_ZONE_RESOURCE (14) and moved the codes after
 * it down by one; a trace file names the kernel it was recorded on. */
static void test_blk_status_by_kernel(void **state)
{
	static const struct {
		const char *release;
		unsigned int status;
		const char *name;
	} cases[] = {
		{ "6.1.0-47-amd64", 10, "IOERR" },
		{ "6.1.0-47-amd64", 14, "ZONE_RESOURCE" },
		{ "6.1.0-47-amd64", 15, "ZONE_OPEN_RESOURCE" },
		{ "6.1.0-47-amd64", 17, "OFFLINE" },
		{ "6.1.0-47-amd64", 18, "DURATION_LIMIT" },
		{ "6.1.0-47-amd64", 19, "status19" },
		{ "6.9.12", 16, "ZONE_ACTIVE_RESOURCE" },
		{ "6.12.117+deb12-amd64", 14, "ZONE_OPEN_RESOURCE" },
		{ "6.12.117+deb12-amd64", 16, "OFFLINE" },
		{ "6.12.117+deb12-amd64", 17, "DURATION_LIMIT" },
		{ "6.12.117+deb12-amd64", 18, "INVAL" },
		{ "6.12.117+deb12-amd64", 19, "INVAL" },
		{ "6.12.117+deb12-amd64", 20, "status20" },
		{ "7.0", 15, "ZONE_ACTIVE_RESOURCE" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		blk_status_kernel(cases[i].release);
		assert_string_equal(blk_status_name(cases[i].status), cases[i].name);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize_ops),
		cmocka_unit_test(test_normalize_unknown_op),
		cmocka_unit_test(test_normalize_flags),
		cmocka_unit_test(test_op_names),
		cmocka_unit_test(test_blk_status_by_kernel),
		cmocka_unit_test(test_flags_str),
		cmocka_unit_test(test_rwbs),
		cmocka_unit_test(test_blk_status),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
