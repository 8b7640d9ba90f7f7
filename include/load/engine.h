/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load's own: the I/O engines (engines.c, the table; engines/NAME.c, one
 * each) and the completions they call back (load_io.c).
 */
#ifndef IOLENS_LOAD_ENGINE_H
#define IOLENS_LOAD_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/* One I/O slot: iodepth of them per thread, each with its own buffer. */
struct load_io {
	void *buf;
	int fd;			/* of its file */
	unsigned int file;	/* which of the thread's files */
	__u64 offset;
	__u32 len;
	__u16 index;		/* slot number, the fixed-buffer index */
	__u8 dir;		/* enum load_dir */
	bool counted;		/* issued after the ramp: goes in the stats */
	__u16 ioprio;		/* fio's: 0, the thread's (load_prio.c) */
	__u8 prio_stat;		/* its clat's per priority, in t->st.prios */
	__u64 t_start;		/* before it was prepared */
	__u64 t_issue;		/* after the submit call returned */
	void *engine_priv;
};

struct load_thread;

enum load_queued { LOAD_Q_QUEUED, LOAD_Q_COMPLETED };

/*
 * An array of an engine's private data with one element per I/O slot: where
 * its pointer is in the private data and the size of an element.
 */
struct load_slots {
	size_t at, size;
};
#define LOAD_SLOTS(type, field) \
	{ offsetof(type, field), sizeof(*((type *)0)->field) }
#define LOAD_MAX_SLOTS 4

/* An engine's operations.  queue is required; a sync engine needs nothing
 * else, an asynchronous one also reap, and commit where queue only adds to
 * a batch (posixaio issues each I/O as it is queued); init and exit are
 * optional for all. */
struct load_engine {
	const char *name;	/* fio's --ioengine name */
	const char *help;	/* one line for --help */
	bool sync;		/* queue() does the I/O: no slat, depth 1 */
	bool diskless;		/* no file: nothing opened, checked or made */
	bool own_threads;	/* the I/O runs on threads the engine's library
				 * starts from the job's (glibc's AIO) */
	bool prio_per_io;	/* sets io->ioprio on each I/O (cmdprio) */
	/* The private data (t->engine_data) and its per-slot arrays: the job
	 * thread allocates them zeroed before init, in one block with the
	 * arrays' pointers set, and frees them after exit, so that an engine
	 * only fills them in.  0: none. */
	size_t priv_size;
	struct load_slots slots[LOAD_MAX_SLOTS];	/* size 0 ends them */
	/* A failed init leaves nothing to release; exit is called only
	 * after one that succeeded. */
	int (*init)(struct load_thread *t);
	/* Adds io to the batch; a sync engine does it and returns
	 * LOAD_Q_COMPLETED with *res the byte count or -errno, as an
	 * asynchronous one does for an I/O it could not queue. */
	int (*queue)(struct load_thread *t, struct load_io *io, long *res);
	/* Submits the batch; returns how many went, or -errno. */
	int (*commit)(struct load_thread *t);
	/* Waits for at least `min` completions and hands each, but no
	 * more than `max` (at least min), to load_io_done(); returns how
	 * many, or -errno.  `until`, a mono_ns() time (0: none), ends the
	 * wait with what completed by then, maybe nothing. */
	int (*reap)(struct load_thread *t, unsigned int min, unsigned int max, __u64 until);
	void (*exit)(struct load_thread *t);
};

/* The engine called `name` (NULL: the default), or NULL. */
const struct load_engine *load_engine_find(const char *name);
/* "want one of: psync io_uring libaio" */
const char *load_engines_text(void);
/* A line per engine, for --help. */
void load_engines_help(FILE *f);

/* ---- completions: load_io.c ---- */

/* For engines: a completion of `io` with `res` bytes or -errno at `now`. */
void load_io_done(struct load_thread *t, struct load_io *io, long res,
		  __u64 now);
/* Stops the job after printing what failed; its first error is kept. */
void load_job_err(struct load_thread *t, const char *what, __u64 offset,
		  int err);

#endif
