/* SPDX-License-Identifier: GPL-2.0 */
/* load's own: --sweep, beyond fio (load_sweep.c). */
#ifndef IOLENS_LOAD_SWEEP_H
#define IOLENS_LOAD_SWEEP_H

#include "load/load.h"

/* Runs the one job of js as --sweep says and reports; the exit code. */
int load_sweep_run(struct load_jobs *js);

#endif
