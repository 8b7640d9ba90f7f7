// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include "lib/fileid.h"
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
	if (rq->fkind != IOLENS_FK_CACHE && rq->fkind != IOLENS_FK_DIRECT)
		return NULL;
	return fileid_path(rq->fdev, rq->ino, rq->fgen);
}
