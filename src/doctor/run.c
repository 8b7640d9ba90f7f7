// SPDX-License-Identifier: GPL-2.0
/* iolens doctor: every check, then the rows as text or JSON. */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "doctor/doctor.h"
#include "lib/log.h"

int doctor_run(const struct doctor_opts *o)
{
	struct doctor *d;
	struct utsname u;
	int ret;

	d = calloc(1, sizeof(*d));
	if (!d) {
		pr_err("doctor: out of memory");
		return 1;
	}
	if (uname(&u))
		memset(&u, 0, sizeof(u));

	doctor_check_kernel(d, &u);
	doctor_check_hooks(d, o);
	doctor_check_programs(d);
	doctor_check_memory(d, o);
	doctor_check_structs(d);

	if (o->json)
		doctor_print_json(d, u.release);
	else
		doctor_print_text(d);

	ret = d->nblockers ? 1 : 0;
	btf__free(d->btf);
	free(d);
	return ret;
}
