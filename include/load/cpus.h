/* SPDX-License-Identifier: GPL-2.0 */
/* load's own: where the job threads run (load_cpus.c). */
#ifndef IOLENS_LOAD_CPUS_H
#define IOLENS_LOAD_CPUS_H

#include <sched.h>
#include "load/load.h"

/* fio's cpus_allowed_policy, and iolens's default, which no option names:
 * split where several job threads run at once, shared for one alone (see
 * load_cpus.c). */
enum load_cpus_policy { LOAD_CPUS_SPLIT, LOAD_CPUS_SHARED, LOAD_CPUS_DEFAULT };

/* Parses fio's CPU list ("0-3,6") into *set: 0, or -1 with *err set to a
 * reason (also for a CPU this process may not run on). */
int load_cpus_parse(const char *s, cpu_set_t *set, const char **err);

/* Restricts the calling job thread, the `index`th of the run, as the job's
 * --cpus_allowed and --cpus_allowed_policy say; `together` job threads run
 * at once with it.  0, or -errno. */
int load_cpus_place(const struct load_job_opts *o, int index, int together);

#endif
