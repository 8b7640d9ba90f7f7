/* SPDX-License-Identifier: GPL-2.0 */
/* The file behind a task's fd, for programs on syscall tracepoints. */
#ifndef IOLENS_FILES_BPF_H
#define IOLENS_FILES_BPF_H

#include "kernel.bpf.h"

/* Macros, so not in vmlinux.h: include/uapi/linux/stat.h */
#define S_IFMT		00170000
#define S_IFREG		0100000
#define S_IFBLK		0060000
/* include/uapi/asm-generic/fcntl.h (x86's values) */
#define O_APPEND	00002000
#define O_DIRECT	00040000

/*
 * Linux 6.2 (a35b9af4ec2c, "bpf: Add a kfunc for generic type cast").  Weak,
 * and called only where the loader set have_rdonly_cast: on 6.1 libbpf 1.1
 * leaves the call unresolved, and the verifier removes it with the rest of
 * the path the read-only constant rules out (unresolved kfunc calls in dead
 * code load since Linux 5.16, a5d827275241).  There the same fields are
 * read with probe reads.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/* What the programs need of a file; `more` fields only when asked. */
struct file_view {
	__u32 mode;		/* i_mode & S_IFMT */
	__u32 flags;		/* f_flags */
	/* more: */
	__s64 pos;		/* f_pos */
	__u64 ino;		/* its inode */
	__u32 sdev;		/* its filesystem (kernel dev_t) */
	__u32 rdev;		/* a block device's own (i_rdev), else 0 */
	__u64 dentry;		/* f_path.dentry */
};

/*
 * The file of fd in task t into *v; false if there is none.  Read through
 * the fd table as fget() would, minus the reference: a racing close() can
 * only make us read a stale file, and the reads fail safely then.
 *
 * t comes from bpf_get_current_task_btf(), so the verifier lets even a
 * classic tracepoint program load through it directly (faulting loads);
 * the file pointer, read at a variable index, is a plain number to it
 * until bpf_rdonly_cast() types it again.  Helper calls were most of the
 * cost: on 6.18 the entry hook took 375 ns with 7 probe reads, 290 ns with
 * 3, 170 ns with this one.
 */
static __always_inline bool fd_file(struct task_struct *t, unsigned int fd,
				    struct file_view *v, bool more)
{
	struct files_struct *files = t->files;
	struct fdtable *fdt;
	struct file *f = NULL;
	struct inode *ino;

	if (!files)
		return false;
	fdt = files->fdt;
	if (!fdt || fd >= fdt->max_fds)
		return false;
	if (bpf_probe_read_kernel(&f, sizeof(f), &fdt->fd[fd]) || !f)
		return false;
	if (!have_rdonly_cast) {
		v->mode = BPF_CORE_READ(f, f_inode, i_mode) & S_IFMT;
		v->flags = BPF_CORE_READ(f, f_flags);
		if (more) {
			v->pos = BPF_CORE_READ(f, f_pos);
			v->ino = BPF_CORE_READ(f, f_inode, i_ino);
			v->sdev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
			v->rdev = v->mode == S_IFBLK ? BPF_CORE_READ(f, f_inode, i_rdev) : 0;
			v->dentry = (__u64)BPF_CORE_READ(f, f_path.dentry);
		}
		return true;
	}
	f = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
	ino = f->f_inode;
	v->mode = ino->i_mode & S_IFMT;
	v->flags = f->f_flags;
	if (more) {
		v->pos = f->f_pos;
		v->ino = ino->i_ino;
		v->sdev = ino->i_sb->s_dev;
		v->rdev = v->mode == S_IFBLK ? ino->i_rdev : 0;
		v->dentry = (__u64)f->f_path.dentry;
	}
	return true;
}

/* Whether the page cache (or the device) serves the file: a regular file
 * or a block device, unlike a pipe or a socket. */
static __always_inline bool file_is_data(const struct file_view *v)
{
	return v->mode == S_IFREG || v->mode == S_IFBLK;
}

#endif
