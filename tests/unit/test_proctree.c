// SPDX-License-Identifier: GPL-2.0
/* lib/proctree.c against real processes: a child of a root is below it,
 * and its answer is forgotten a call after it is found reaped, so that a
 * pid given again is judged anew. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "lib/proctree.h"

static pid_t sleeper(void)
{
	pid_t pid = fork();

	if (!pid) {
		/* Gone with the test, should an assertion end it early. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	assert_true(pid > 0);
	return pid;
}

static void gone_processes_are_forgotten(void **state)
{
	int roots[1] = { getpid() };
	struct proctree t;
	pid_t a = sleeper(), b = sleeper();

	(void)state;
	proctree_init(&t, roots, 1);
	assert_int_equal(proctree_judge(&t, a), 1);
	assert_int_equal(proctree_judge(&t, b), 1);
	assert_int_equal(proctree_judge(&t, 1), 0);
	assert_int_equal(t.nseen, 3);
	kill(a, SIGKILL);
	waitpid(a, NULL, 0);
	/* Kept for one more call, then forgotten: b and init stay. */
	proctree_forget_gone(&t);
	assert_int_equal(t.nseen, 3);
	assert_int_equal(proctree_judge(&t, a), 1);
	proctree_forget_gone(&t);
	assert_int_equal(t.nseen, 2);
	assert_int_equal(proctree_judge(&t, b), 1);
	assert_int_equal(proctree_judge(&t, a), -1);
	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
	proctree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gone_processes_are_forgotten),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
