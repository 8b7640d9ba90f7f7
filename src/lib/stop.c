// SPDX-License-Identifier: GPL-2.0
#include <signal.h>
#include <time.h>
#include "lib/clock.h"
#include "lib/stop.h"

static volatile sig_atomic_t stopped;

static void on_signal(int sig)
{
	(void)sig;
	stopped = 1;
}

/* Every signal whose default ends the process without a core (signal(7)):
 * each ends a command as Ctrl-C does, so a trace is closed and a report
 * printed whoever sends it (a closed terminal's SIGHUP, a batch system's
 * SIGUSR2 or SIGXCPU).  SIGPIPE keeps its default: `snoop | head` ends
 * quietly.  SIGUSR1 is the flight recorder's; elsewhere it is ignored. */
static const int ending[] = {
	SIGINT, SIGTERM, SIGHUP, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
	SIGXFSZ, SIGPWR, SIGIO,
};

void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(ending) / sizeof(ending[0]); i++)
		sigaddset(set, ending[i]);
}

void stop_catch(void)
{
	/* SA_RESTART: a signal must not cut a write to a pipe short, stdio
	 * would lose the rest of its buffer.  Sleeps (clock_nanosleep, pause,
	 * poll) return early all the same: signal(7) never restarts them. */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	struct sigaction was;

	/* Ctrl-C and SIGTERM always: a shell starts a script's background
	 * commands with SIGINT ignored, and `kill -INT` must end them still.
	 * Another signal someone ignored (nohup's SIGHUP) or this process
	 * already handles (record --ring's SIGUSR1) is left as it is. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (size_t i = 0; i < sizeof(ending) / sizeof(ending[0]); i++) {
		if (!sigaction(ending[i], NULL, &was) && was.sa_handler == SIG_DFL)
			sigaction(ending[i], &sa, NULL);
	}
	if (!sigaction(SIGUSR1, NULL, &was) && was.sa_handler == SIG_DFL)
		signal(SIGUSR1, SIG_IGN);
}

bool stop_requested(void)
{
	return stopped;
}

void stop_request(void)
{
	stopped = 1;
}

/* Sleeps until CLOCK_MONOTONIC reaches `ns`, or a stop is requested. */
static void sleep_until(__u64 ns)
{
	struct timespec ts = ns_timespec(ns);

	while (!stopped &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

int stop_every(__u64 start_ns, __u64 interval_ns, unsigned long count,
	       bool last, int (*tick)(void *arg), void *arg)
{
	__u64 next = start_ns;
	unsigned long done = 0;
	int err;

	stop_catch();
	while (!stop_requested()) {
		next = interval_ns ? next + interval_ns : ~0ULL;
		sleep_until(next);
		if (stop_requested() && !last)
			break;
		err = tick(arg);
		if (err)
			return err;
		if (++done == count)
			break;
	}
	return 0;
}
