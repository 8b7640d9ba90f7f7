// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's REQ_OP_* numbers and __REQ_* flag bits are internal and have
 * changed between releases (REQ_OP_WRITE_SAME went away in 5.18, flag bits
 * shifted whenever one was added), so the BPF side ships raw cmd_flags and
 * they are decoded here with the running kernel's own enums from BTF.
 */
#include <stdio.h>
#include <sys/utsname.h>
#include <string.h>
#include <bpf/btf.h>
#include "lib/kbtf.h"
#include "trace/reqflags.h"

struct flag_def {
	const char *kname;	/* enumerator in enum req_flag_bits */
	unsigned int iolens;	/* enum iolens_rq_flag */
	const char *name;
	int fallback_bit;	/* Linux 6.18 value, used without BTF */
	int bit;		/* this kernel's, -1 if absent */
};

/* The kernel's own bit is filled by reqflags_init(). */
#define FLAG_DEF(n, bit, kbit, name) { "__REQ_" #n, IOLENS_F_##n, name, kbit, -1 },
static struct flag_def flag_defs[] = { IOLENS_RQ_FLAGS(FLAG_DEF) };
#undef FLAG_DEF

struct op_def {
	const char *kname;	/* enumerator in enum req_op */
	unsigned int iolens;
	int fallback;
	int value;
};

static struct op_def op_defs[] = {
	{ "REQ_OP_READ",           IOLENS_OP_READ,            0, -1 },
	{ "REQ_OP_WRITE",          IOLENS_OP_WRITE,           1, -1 },
	{ "REQ_OP_FLUSH",          IOLENS_OP_FLUSH,           2, -1 },
	{ "REQ_OP_DISCARD",        IOLENS_OP_DISCARD,         3, -1 },
	{ "REQ_OP_SECURE_ERASE",   IOLENS_OP_SECURE_ERASE,    5, -1 },
	{ "REQ_OP_ZONE_APPEND",    IOLENS_OP_ZONE_APPEND,     7, -1 },
	{ "REQ_OP_WRITE_ZEROES",   IOLENS_OP_WRITE_ZEROES,    9, -1 },
	{ "REQ_OP_ZONE_OPEN",      IOLENS_OP_ZONE_OPEN,      11, -1 },
	{ "REQ_OP_ZONE_CLOSE",     IOLENS_OP_ZONE_CLOSE,     13, -1 },
	{ "REQ_OP_ZONE_FINISH",    IOLENS_OP_ZONE_FINISH,    15, -1 },
	{ "REQ_OP_ZONE_RESET",     IOLENS_OP_ZONE_RESET,     17, -1 },
	{ "REQ_OP_ZONE_RESET_ALL", IOLENS_OP_ZONE_RESET_ALL, 19, -1 },
	{ "REQ_OP_DRV_IN",         IOLENS_OP_DRV,            34, -1 },
	{ "REQ_OP_DRV_OUT",        IOLENS_OP_DRV,            35, -1 },
};

static const char *const op_names[IOLENS_OP_NR] = {
	[IOLENS_OP_READ] = "read",
	[IOLENS_OP_WRITE] = "write",
	[IOLENS_OP_FLUSH] = "flush",
	[IOLENS_OP_DISCARD] = "discard",
	[IOLENS_OP_SECURE_ERASE] = "secure-erase",
	[IOLENS_OP_WRITE_ZEROES] = "write-zeroes",
	[IOLENS_OP_ZONE] = "zone",
	[IOLENS_OP_DRV] = "drv",
	[IOLENS_OP_OTHER] = "other",
	[IOLENS_OP_ZONE_APPEND] = "zone-append",
	[IOLENS_OP_ZONE_RESET] = "zone-reset",
	[IOLENS_OP_ZONE_RESET_ALL] = "zone-reset-all",
	[IOLENS_OP_ZONE_OPEN] = "zone-open",
	[IOLENS_OP_ZONE_CLOSE] = "zone-close",
	[IOLENS_OP_ZONE_FINISH] = "zone-finish",
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

int reqflags_init(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	size_t i;

	if (!btf) {
		for (i = 0; i < ARRAY_LEN(flag_defs); i++)
			flag_defs[i].bit = flag_defs[i].fallback_bit;
		for (i = 0; i < ARRAY_LEN(op_defs); i++)
			op_defs[i].value = op_defs[i].fallback;
		return -1;
	}
	for (i = 0; i < ARRAY_LEN(flag_defs); i++)
		flag_defs[i].bit = kbtf_enum_value(btf, "req_flag_bits",
						   flag_defs[i].kname);
	for (i = 0; i < ARRAY_LEN(op_defs); i++)
		op_defs[i].value = kbtf_enum_value(btf, "req_op", op_defs[i].kname);
	btf__free(btf);
	return 0;
}

void reqflags_normalize(struct iolens_rq *rq)
{
	unsigned int kop = rq->kflags & KERNEL_REQ_OP_MASK;
	size_t i;

	rq->op = IOLENS_OP_OTHER;
	for (i = 0; i < ARRAY_LEN(op_defs); i++) {
		if (op_defs[i].value == (int)kop) {
			rq->op = op_defs[i].iolens;
			break;
		}
	}
	rq->flags = 0;
	for (i = 0; i < ARRAY_LEN(flag_defs); i++) {
		if (flag_defs[i].bit >= 0 && (rq->kflags >> flag_defs[i].bit & 1))
			rq->flags |= flag_defs[i].iolens;
	}
}

const char *op_name(unsigned int op)
{
	return op < IOLENS_OP_NR ? op_names[op] : "?";
}

unsigned int op_parse_mask(const char *s)
{
	/* "zone" is every zone op, as it was one op before they had names. */
	if (!strcmp(s, op_names[IOLENS_OP_ZONE])) {
		unsigned int m = 1U << IOLENS_OP_ZONE;

		for (int i = IOLENS_OP_ZONE_APPEND; i < IOLENS_OP_NR; i++)
			m |= 1U << i;
		return m;
	}
	for (int i = 0; i < IOLENS_OP_NR; i++) {
		if (!strcmp(s, op_names[i]))
			return 1U << i;
	}
	return 0;
}

const char *op_names_list(void)
{
	static char buf[256];
	size_t n = 0;

	if (!buf[0]) {
		for (int i = 0; i < IOLENS_OP_NR; i++)
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "", op_names[i]);
		snprintf(buf + n, sizeof(buf) - n, ",");
	}
	return buf;
}

void flags_str(unsigned int flags, char *buf, size_t len)
{
	size_t n = 0;

	/* Called per request by snoop: plain copies, no printf. */
	for (size_t i = 0; i < ARRAY_LEN(flag_defs); i++) {
		size_t l = strlen(flag_defs[i].name);

		if (!(flags & flag_defs[i].iolens) || n + l + 2 > len)
			continue;
		if (n)
			buf[n++] = ',';
		memcpy(buf + n, flag_defs[i].name, l);
		n += l;
	}
	buf[n] = '\0';
}

void rq_rwbs(const struct iolens_rq *rq, char *buf, size_t len)
{
	/* The letters and order of the kernel's blk_fill_rwbs(), so these
	 * compare equal to the rwbs field of the tracefs block events: a
	 * preflush, the op, then these flags. */
	static const char *const op_letters[IOLENS_OP_NR] = {
		[IOLENS_OP_READ] = "R", [IOLENS_OP_WRITE] = "W",
		[IOLENS_OP_FLUSH] = "F", [IOLENS_OP_DISCARD] = "D",
		[IOLENS_OP_SECURE_ERASE] = "DE",
	};
	static const struct {
		unsigned int flag;
		char letter;
	} flag_letters[] = {
		{ IOLENS_F_FUA, 'F' }, { IOLENS_F_RAHEAD, 'A' },
		{ IOLENS_F_SYNC, 'S' }, { IOLENS_F_META, 'M' },
	};
	const char *op = rq->op < IOLENS_OP_NR && op_letters[rq->op] ?
			 op_letters[rq->op] : "N";
	char s[16];
	int i = 0;

	if (rq->flags & IOLENS_F_PREFLUSH)
		s[i++] = 'F';
	while (*op)
		s[i++] = *op++;
	for (size_t k = 0; k < ARRAY_LEN(flag_letters); k++)
		if (rq->flags & flag_letters[k].flag)
			s[i++] = flag_letters[k].letter;
	s[i] = '\0';
	if ((size_t)i < len)
		memcpy(buf, s, i + 1);
	else if (len)
		buf[0] = '\0';
}

/*
 * blk_status_t values are #defines, not in BTF, and were renumbered:
 * "block: Remove BLK_STS_ZONE_RESOURCE" (Linux 6.10) moved the codes
 * after 13 down by one.  Names as in include/linux/blk_types.h of 6.1 and
 * 6.18.  BLK_STS_INVAL (Linux 6.11) was 19 and later moved to 18, where
 * nothing else was: on 6.10 and later both mean it.  Anything else is
 * shown as a number.
 */
static const char *const sts_common[] = {
	"ok", "NOTSUPP", "TIMEOUT", "NOSPC", "TRANSPORT", "TARGET",
	"RESV_CONFLICT", "MEDIUM", "PROTECTION", "RESOURCE", "IOERR",
	"DM_REQUEUE", "AGAIN", "DEV_RESOURCE",
};
static const char *const sts_before_6_10[] = {
	"ZONE_RESOURCE", "ZONE_OPEN_RESOURCE", "ZONE_ACTIVE_RESOURCE",
	"OFFLINE", "DURATION_LIMIT",
};
static const char *const sts_since_6_10[] = {
	"ZONE_OPEN_RESOURCE", "ZONE_ACTIVE_RESOURCE", "OFFLINE",
	"DURATION_LIMIT", "INVAL", "INVAL",
};

/* -1: not set, the running kernel's numbering is read at first use. */
static int sts_old = -1;

void blk_status_kernel(const char *release)
{
	int major, minor;

	sts_old = sscanf(release, "%d.%d", &major, &minor) == 2 &&
		  (major < 6 || (major == 6 && minor < 10));
}

const char *blk_status_name(unsigned int status)
{
	static __thread char buf[24];	/* snoop formats in several threads */
	const char *const *tail;
	size_t ntail, common = ARRAY_LEN(sts_common);

	if (sts_old < 0) {
		struct utsname u;

		blk_status_kernel(uname(&u) ? "" : u.release);
	}
	tail = sts_old ? sts_before_6_10 : sts_since_6_10;
	ntail = sts_old ? ARRAY_LEN(sts_before_6_10) : ARRAY_LEN(sts_since_6_10);
	if (status < common)
		return sts_common[status];
	if (status - common < ntail)
		return tail[status - common];
	snprintf(buf, sizeof(buf), "status%u", status);
	return buf;
}
