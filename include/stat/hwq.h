/* SPDX-License-Identifier: GPL-2.0 */
/* `iolens stat --by hwq`: each disk's figures by hardware queue, in text
 * or JSON. */
#ifndef IOLENS_STAT_HWQ_H
#define IOLENS_STAT_HWQ_H

#include "lib/json.h"
#include "stat/print.h"

/* A table of the queues of the rows' disks that did something in the
 * interval of `secs`. */
void stat_hwq_print(const struct stat_row *rows, int n, double secs);

/* The row's disk's active queues as the array "hwq" (null without them). */
void stat_hwq_json(struct json *j, const struct stat_row *r, double secs);

#endif
