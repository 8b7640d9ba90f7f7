// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "lib/devices.h"
#include "lib/fileid.h"
#include "lib/json.h"
#include "trace/rqfile.h"

const char *rqfile_kind(const struct iolens_rq *rq)
{
	switch (rq->fkind) {
	case IOLENS_FK_CACHE:
		return "cache";
	case IOLENS_FK_DIRECT:
		return "direct";
	case IOLENS_FK_DEVICE:
		/* Its page cache is the filesystem's buffers then; raw
		 * direct I/O on a mounted device is not done. */
		return fileid_dev_mounted(rq->fdev) ? "metadata" : "device";
	}
	/* A flush carries no data at all. */
	return rq->bytes ? "unknown" : "none";
}

const char *rqfile_path(const struct iolens_rq *rq)
{
	return rqfile_has_inode(rq) ? fileid_path(rq->fdev, rq->ino, rq->fgen) : NULL;
}

const char *rqfile_unnamed(const struct iolens_rq *rq, const char *kind, char *buf,
			   size_t len)
{
	if (rqfile_has_inode(rq))
		snprintf(buf, len, "(inode %" PRIu64 " on %u:%u)", (uint64_t)rq->ino,
			 kdev_major(rq->fdev), kdev_minor(rq->fdev));
	else
		snprintf(buf, len, "(%s)", kind);
	return buf;
}

void rqfile_json(struct json *j, const struct iolens_rq *rq)
{
	char dev[24];

	json_str(j, "file", rqfile_path(rq));
	json_str(j, "file_kind", rqfile_kind(rq));
	snprintf(dev, sizeof(dev), "%u:%u", kdev_major(rq->fdev), kdev_minor(rq->fdev));
	json_str(j, "file_dev", rq->fkind != IOLENS_FK_NONE ? dev : NULL);
	if (rqfile_has_inode(rq))
		json_u64(j, "file_ino", rq->ino);
	else
		json_null(j, "file_ino");
}
