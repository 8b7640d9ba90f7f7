/* SPDX-License-Identifier: GPL-2.0 */
/* The file a request's data belongs to (struct iolens_rq.fkind...), named
 * on the live system for snoop and record. */
#ifndef IOLENS_RQFILE_H
#define IOLENS_RQFILE_H

#include <stdbool.h>
#include <stddef.h>
#include "bpf/block.h"

/* Whether the request names a file by inode (its path may be unknown). */
static inline bool rqfile_has_inode(const struct iolens_rq *rq)
{
	return rq->fkind == IOLENS_FK_CACHE || rq->fkind == IOLENS_FK_DIRECT;
}

/* What the request's data is: "cache" (a file's page cache), "direct" (a
 * file's direct I/O), "metadata" (the page cache of a device holding a
 * mounted filesystem), "device" (the raw device's), "unknown", or "none"
 * for a request without data (a flush). */
const char *rqfile_kind(const struct iolens_rq *rq);

/* The path of the request's file (lib/fileid.h); NULL for no file or
 * where none is known. */
const char *rqfile_path(const struct iolens_rq *rq);

/* What stands for the path where there is none, into buf: "(inode N on
 * MAJ:MIN)" for a file, else "(KIND)", of rqfile_kind()'s `kind`. */
const char *rqfile_unnamed(const struct iolens_rq *rq, const char *kind, char *buf,
			   size_t len);

struct json;
/* The file's keys of a JSON object, as top -j and the report's page name
 * them: file (null where unknown), file_kind, file_dev, file_ino. */
void rqfile_json(struct json *j, const struct iolens_rq *rq);

#endif
