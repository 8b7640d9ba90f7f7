// SPDX-License-Identifier: GPL-2.0
/* fio job files (src/load/load_jobfile.c), any bytes. */
#include "fuzz.h"
#include "load/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct load_jobs js = {};
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	load_opts_init(&js.global);
	load_jobfile_read(&js, path, 0);
	load_jobs_free(&js);
	close(fd);
	return 0;
}
