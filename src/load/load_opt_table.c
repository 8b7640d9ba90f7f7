// SPDX-License-Identifier: GPL-2.0
/*
 * The table of iolens load's options, made from the rows of
 * load/options.def: their choices first, then the options.
 */
#include <stddef.h>
#include "load/cpus.h"
#include "load/load.h"
#include "load/opt_table.h"
#include "load/opts.h"
#include "load/verify.h"

#define CHOICES(list, ...) \
	static const struct load_choice list##_choices[] = { __VA_ARGS__, { NULL, 0 } };
#define OPT(name, type, field, choices, min, max, arg, help)
#include "load/options.def"
#undef CHOICES
#undef OPT

#define CHOICES(list, ...)
#define OPT(name, type, field, choices, min, max, arg, help) \
	{ name, type, offsetof(struct load_job_opts, field), choices, min, max, arg, help },
const struct load_opt load_opt_table[] = {
#include "load/options.def"
};
#undef CHOICES
#undef OPT

const size_t load_opt_table_n = sizeof(load_opt_table) / sizeof(load_opt_table[0]);

const struct load_opt_alias load_opt_aliases[] = {
	{ "readwrite", "rw" }, { "threads", "thread" }, { "blocksize", "bs" },
	{ "blocksize_range", "bsrange" }, { "ba", "blockalign" },
	{ "timeout", "runtime" }, { "wait_for_previous", "stonewall" },
	{ "io_limit", "io_size" }, { "steadystate", "ss" },
	{ "steadystate_duration", "ss_dur" }, { "steadystate_ramp_time", "ss_ramp" },
	{ "iodepth_batch", "iodepth_batch_submit" },
	{ "iodepth_batch_complete", "iodepth_batch_complete_min" },
};

const size_t load_opt_aliases_n = sizeof(load_opt_aliases) / sizeof(load_opt_aliases[0]);
