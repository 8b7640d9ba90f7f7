/* SPDX-License-Identifier: GPL-2.0 */
/* The device filter every block program applies first. */
#ifndef IOLENS_DEVFILTER_BPF_H
#define IOLENS_DEVFILTER_BPF_H

/* Whether `dev` is one of the `n` devices of `list` (its rodata config);
 * n == 0 wants every device. */
static __always_inline bool dev_in(const volatile __u32 *list, __u32 n,
				   __u32 dev)
{
	if (!n)
		return true;
	for (int i = 0; i < IOLENS_MAX_DEV_FILTER; i++) {
		if (i >= n)
			break;
		if (list[i] == dev)
			return true;
	}
	return false;
}

/* The whole disk of a request, for tp_btf programs (direct BTF loads).
 * Kernel-internal dev_t: MINORBITS is 20. */
static __always_inline __u32 disk_dev_of(struct request *rq)
{
	struct gendisk *disk = rq->q->disk;

	return (__u32)disk->major << 20 | (__u32)disk->first_minor;
}

#endif
