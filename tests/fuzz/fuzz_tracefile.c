// SPDX-License-Identifier: GPL-2.0
/*
 * The trace reader (src/report/tracefile.c) on any inflated stream: the
 * input is what gzip holds, compressed here, so the search spends itself
 * on our parser and not on gzip's.  Every record returned must be one the
 * reader could vouch for (types the consumers index with).
 */
#include <stdlib.h>
#include <zlib.h>
#include "fuzz.h"
#include "lib/tracefile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_header h;
	struct trace_reader *r;
	struct trace_item it;
	char path[64], err[256];
	gzFile g;
	int fd = fuzz_file(NULL, 0, path, sizeof(path));

	if (fd < 0)
		return 0;
	g = gzdopen(dup(fd), "wb1");
	if (!g || (size && gzwrite(g, data, size) != (int)size) || gzclose(g) != Z_OK) {
		close(fd);
		return 0;
	}
	r = trace_open(path, &h, err, sizeof(err));
	if (r) {
		while (trace_next(r, &it, err, sizeof(err)) == 1)
			if (it.type == TRACE_REC_RQ &&
			    (it.rq.op >= IOLENS_OP_NR || it.rq.ctx > IOLENS_CTX_ISSUE))
				abort();
		trace_close(r);
	}
	close(fd);
	return 0;
}
