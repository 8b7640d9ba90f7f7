/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who a cgroup is to the person at the machine: a systemd unit, a Docker
 * or Podman container, a Kubernetes pod and its container, known by the
 * names their managers give the cgroup directories (see container.c's
 * table), and their names where the managers' own files say them.  Names
 * count where root made the folders; in a subtree delegated to a user
 * (user@UID.service, rootless containers) they are that user's claim,
 * said as such.
 */
#ifndef IOLENS_CONTAINER_H
#define IOLENS_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum ctr_kind {
	CTR_NONE,	/* none of the shapes below: the cgroup path says it */
	CTR_SERVICE,	/* a systemd service: "nginx.service" */
	CTR_SCOPE,	/* a systemd scope of no runtime: "session-2.scope" */
	CTR_DOCKER,
	CTR_PODMAN,
	CTR_CONTAINERD,	/* containerd or CRI-O outside Kubernetes */
	CTR_CRIO,
	CTR_POD,	/* a Kubernetes pod, or a container of one */
	CTR_NR,
};

#define CTR_ID_LEN 64	/* the runtimes' container ids: 64 hex digits */

struct ctr_ident {
	enum ctr_kind kind;
	char id[CTR_ID_LEN + 1];	/* container id, or "" */
	char pod[40];			/* pod uid (with dashes), or "" */
	/* The unit for SERVICE and SCOPE; else the container's name where
	 * its manager's files are readable ("web" for Docker, "ns/pod/ctr"
	 * for Kubernetes), or "". */
	char name[256];
	/* Found in a subtree delegated to user `owner` (lib/cgroups.h's
	 * cgroup_delegated()): the names below it are that user's to
	 * choose, so the kind and name are its claim, not the runtime's or
	 * systemd's. */
	bool delegated;
	uid_t owner;
};

/* The identity of cgroup `path` ("/system.slice/docker-<id>.scope", or
 * "blkio:/..." of a v1 hierarchy).  Names are read from the managers'
 * files once per container and kept. */
void ctr_ident_of(const char *path, struct ctr_ident *ci);

/* "docker", "pod", ...: JSON's and the labels' word for the kind. */
const char *ctr_kind_name(enum ctr_kind k);

/* What top shows for it: "nginx.service", "docker:web", "docker:3f2a1b9c0d1e",
 * "pod:ns/name/ctr", "pod:<uid>/3f2a1b9c0d1e"; the path itself for
 * CTR_NONE; "uid 1001: nginx.service" for one a user's subtree holds, so
 * that it never joins the row of the real one.  Into buf, which is
 * returned; not sanitized. */
const char *ctr_ident_label(const struct ctr_ident *ci, const char *path,
			    char *buf, size_t len);

#endif
