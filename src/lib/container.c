// SPDX-License-Identifier: GPL-2.0
/*
 * Container and unit identities from cgroup paths.  The managers name the
 * directories (systemd's "cgroup driver" and the "cgroupfs" one):
 *
 *   /system.slice/nginx.service                               a service
 *   /system.slice/docker-<id>.scope, /docker/<id>             Docker
 *   /machine.slice/libpod-<id>.scope                          Podman
 *   /kubepods.slice/kubepods-burstable.slice/
 *     kubepods-burstable-pod<uid, _ for ->.slice/cri-containerd-<id>.scope
 *   /kubepods/burstable/pod<uid>/<id>                         Kubernetes
 *
 * The kubelet's folders can be deeper (kind and some distributions put
 * them under kubelet.slice/kubelet-kubepods.slice): a pod is a pod below
 * any folder whose name has "kubepods" in it.
 *
 * Names come from files the managers keep for their own use, read only
 * (never followed as links at the last step), once per container:
 * Docker's containers/<id>/config.v2.json "Name", Podman's (rootful:
 * containers/storage's) overlay-containers/containers.json entry of the
 * id, "names", and the kubelet's log folders, which every CRI runtime
 * gets: /var/log/pods/<ns>_<pod>_<uid> and
 * /var/log/containers/<pod>_<ns>_<container>-<id>.log (Kubernetes names
 * have no "_").
 */
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/cgroups.h"
#include "lib/container.h"
#include "lib/smallfile.h"

/* A container's own cgroup: the runtime's prefix, the id and ".scope"
 * (systemd driver), or a bare id in a folder of the runtime's name
 * (cgroupfs driver). */
static const struct shape {
	const char *prefix;
	const char *parent;
	enum ctr_kind kind;
} shapes[] = {
	{ "docker-", NULL, CTR_DOCKER },
	{ NULL, "docker", CTR_DOCKER },
	{ "libpod-", NULL, CTR_PODMAN },
	{ "cri-containerd-", NULL, CTR_CONTAINERD },
	{ "crio-", NULL, CTR_CRIO },
};

static const char *const kind_names[CTR_NR] = {
	[CTR_NONE] = "cgroup", [CTR_SERVICE] = "service", [CTR_SCOPE] = "scope",
	[CTR_DOCKER] = "docker", [CTR_PODMAN] = "podman",
	[CTR_CONTAINERD] = "containerd", [CTR_CRIO] = "crio", [CTR_POD] = "pod",
};

const char *ctr_kind_name(enum ctr_kind k)
{
	return k < CTR_NR ? kind_names[k] : "cgroup";
}

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* comp (n bytes) is "<prefix><64 hex>.scope" of a shape, or the bare id
 * in the folder `parent`: the id copied to ci->id. */
static bool container_comp(const char *comp, size_t n, const char *parent,
			   size_t pn, struct ctr_ident *ci)
{
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *s = &shapes[i];
		const char *id = comp;
		size_t idn = n;

		if (s->prefix) {
			size_t l = strlen(s->prefix);

			if (n != l + CTR_ID_LEN + 6 || strncmp(comp, s->prefix, l) ||
			    strncmp(comp + n - 6, ".scope", 6))
				continue;
			id += l;
			idn = CTR_ID_LEN;
		} else if (pn != strlen(s->parent) || strncmp(parent, s->parent, pn)) {
			continue;
		}
		if (idn != CTR_ID_LEN || !all_hex(id, idn))
			continue;
		memcpy(ci->id, id, CTR_ID_LEN);
		ci->id[CTR_ID_LEN] = 0;
		ci->kind = s->kind;
		return true;
	}
	return false;
}

/* A pod's folder: "kubepods[-qos]-pod<uid>.slice" or "pod<uid>", the uid's
 * dashes written as "_" by the systemd driver. */
static bool pod_comp(const char *comp, size_t n, struct ctr_ident *ci)
{
	const char *p = comp;
	char uid[37];
	size_t l = n;

	if (n > 6 && !strncmp(comp + n - 6, ".slice", 6)) {
		const char *d = NULL;

		l -= 6;
		for (size_t i = l; i > 0 && !d; i--)
			if (comp[i - 1] == '-')
				d = comp + i;
		if (!d)
			return false;
		p = d;
		l = comp + l - d;
	}
	if (l != 3 + 36 || strncmp(p, "pod", 3))
		return false;
	p += 3;
	for (size_t i = 0; i < 36; i++) {
		char c = p[i] == '_' ? '-' : p[i];

		if (i == 8 || i == 13 || i == 18 || i == 23 ? c != '-' :
		    !all_hex(&c, 1))
			return false;
		uid[i] = c;
	}
	uid[36] = 0;
	memcpy(ci->pod, uid, sizeof(uid));
	return true;
}

/* ---- names, from the managers' files ---- */

#define NAME_CACHE 64
#define NAME_RETRY_S 10	/* a container is named before it runs; a miss
			 * is asked again this much later */

struct name_ent {
	char key[sizeof(((struct ctr_ident *)0)->pod) + CTR_ID_LEN + 2];
	char name[256];
	time_t at;
};

static __thread struct name_ent names[NAME_CACHE];
static __thread unsigned int names_next;

/* The string after `key` in JSON text p, up to its quote, before `stop`
 * (NULL: anywhere), into name. */
static void json_after(const char *p, const char *key, const char *stop,
		       char *name, size_t len)
{
	const char *end;

	p = p ? strstr(p, key) : NULL;
	if (!p || (stop && p > stop))
		return;
	p += strlen(key);
	end = strchr(p, '"');
	if (end && end - p < (long)len)
		snprintf(name, len, "%.*s", (int)(end - p), p);
}

/* The name a runtime gave container id, from its file `path` (at most
 * `max` bytes read): after `key`, in the entry that `at` (a format of id,
 * NULL: the whole file) begins, before the next entry's `at`. */
static void file_name(const char *path, size_t max, const char *at, const char *id,
		      const char *key, char *name, size_t len)
{
	char want[CTR_ID_LEN + 16], *buf = malloc(max), *p = buf;

	if (!buf)
		return;
	if (smallfile_read(path, buf, max) > 0) {
		if (at) {
			snprintf(want, sizeof(want), at, id);
			p = strstr(buf, want);
		}
		if (p)
			json_after(p, key, at ? strstr(p + 1, "\"id\":\"") : NULL, name, len);
	}
	free(buf);
}

/* Docker's name of container id: "Name":"/web" in its config. */
static void docker_name(const char *id, char *name, size_t len)
{
	char path[160];

	snprintf(path, sizeof(path), "/var/lib/docker/containers/%s/config.v2.json", id);
	file_name(path, 1 << 20, NULL, id, "\"Name\":\"/", name, len);
}

/* Podman's: "names":["db"] in the entry "id":"<id>" of the list of
 * containers/storage (each entry begins with its id). */
static void podman_name(const char *id, char *name, size_t len)
{
	file_name("/var/lib/containers/storage/overlay-containers/containers.json", 8 << 20,
		  "\"id\":\"%s\"", id, "\"names\":[\"", name, len);
}

/* The entry of `dir` ending in `suffix`, its name without it. */
static bool entry_ending(const char *dir, const char *suffix, char *out, size_t len)
{
	size_t sl = strlen(suffix);
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > sl && !strcmp(e->d_name + n - sl, suffix) && n - sl < len) {
			snprintf(out, len, "%.*s", (int)(n - sl), e->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

/* "ns/pod" from /var/log/pods/<ns>_<pod>_<uid>, then "/container" from
 * /var/log/containers/<pod>_<ns>_<container>-<id>.log. */
static void pod_name(const char *uid, const char *id, char *name, size_t len)
{
	char suffix[80], ent[256], *us;

	snprintf(suffix, sizeof(suffix), "_%s", uid);
	if (!entry_ending("/var/log/pods", suffix, ent, sizeof(ent)) ||
	    !(us = strchr(ent, '_')))
		return;
	*us = '/';
	snprintf(name, len, "%s", ent);
	snprintf(suffix, sizeof(suffix), "-%s.log", id);
	if (*id && entry_ending("/var/log/containers", suffix, ent, sizeof(ent)) &&
	    (us = strrchr(ent, '_')))
		snprintf(name + strlen(name), len - strlen(name), "/%s", us + 1);
}

static void name_of(struct ctr_ident *ci)
{
	struct name_ent *e = NULL;
	char key[sizeof(e->key)];
	time_t now = time(NULL);

	snprintf(key, sizeof(key), "%s/%s", ci->pod, ci->id);
	for (int i = 0; i < NAME_CACHE && !e; i++)
		if (!strcmp(names[i].key, key))
			e = &names[i];
	if (e && (e->name[0] || now - e->at < NAME_RETRY_S)) {
		snprintf(ci->name, sizeof(ci->name), "%s", e->name);
		return;
	}
	if (!e) {
		e = &names[names_next++ % NAME_CACHE];
		snprintf(e->key, sizeof(e->key), "%s", key);
	}
	e->name[0] = 0;
	e->at = now;
	if (ci->kind == CTR_DOCKER)
		docker_name(ci->id, e->name, sizeof(e->name));
	else if (ci->kind == CTR_PODMAN)
		podman_name(ci->id, e->name, sizeof(e->name));
	else if (ci->kind == CTR_POD)
		pod_name(ci->pod, ci->id, e->name, sizeof(e->name));
	snprintf(ci->name, sizeof(ci->name), "%s", e->name);
}

void ctr_ident_of(const char *path, struct ctr_ident *ci)
{
	const char *c = path, *unit = NULL, *parent = "";
	size_t unit_n = 0, parent_n = 0, claim = 0, at = 0;
	bool kube = false, service = false;
	uid_t owner;

	memset(ci, 0, sizeof(*ci));
	if (!path)
		return;
	/* A v1 hierarchy's "blkio:/x" names the same folders. */
	if (*c != '/' && strchr(c, ':'))
		c = strchr(c, ':') + 1;
	while (*c == '/')
		c++;
	while (*c) {
		size_t n = strcspn(c, "/");
		bool svc = n > 8 && !strncmp(c + n - 8, ".service", 8);

		kube |= memmem(c, n, "kubepods", 8) != NULL;
		if ((kube && !ci->pod[0] && pod_comp(c, n, ci)) ||
		    (!ci->id[0] && container_comp(c, n, parent, parent_n, ci)))
			claim = c + n - path;
		if (svc || (n > 6 && !strncmp(c + n - 6, ".scope", 6))) {
			unit = c;
			unit_n = n;
			service = svc;
			claim = c + n - path;
		}
		parent = c;
		parent_n = n;
		c += n;
		while (*c == '/')
			c++;
	}
	/* The cgroupfs driver's container of a pod: a bare id in its folder. */
	if (kube && ci->pod[0] && !ci->id[0] && parent_n == CTR_ID_LEN &&
	    all_hex(parent, parent_n)) {
		memcpy(ci->id, parent, CTR_ID_LEN);
		ci->id[CTR_ID_LEN] = 0;
	}
	if (kube && ci->pod[0])
		ci->kind = CTR_POD;
	/* A name below the first folder a user owns is that user's: the
	 * folder itself (user@1001.service) systemd named. */
	if (claim && cgroup_delegated(path, &owner, &at) && claim > at) {
		ci->delegated = true;
		ci->owner = owner;
	}
	if (ci->kind != CTR_NONE) {
		name_of(ci);
		return;
	}
	if (unit && unit_n < sizeof(ci->name)) {
		ci->kind = service ? CTR_SERVICE : CTR_SCOPE;
		memcpy(ci->name, unit, unit_n);
		ci->name[unit_n] = 0;
	}
}

const char *ctr_ident_label(const struct ctr_ident *ci, const char *path,
			    char *buf, size_t len)
{
	const char *k = ctr_kind_name(ci->kind);
	int o = 0;

	if (ci->delegated && ci->kind != CTR_NONE) {
		o = snprintf(buf, len, "uid %u: ", (unsigned int)ci->owner);
		if (o < 0 || (size_t)o >= len)
			return buf;
		buf += o;
		len -= o;
	}
	switch (ci->kind) {
	case CTR_NONE:
		snprintf(buf, len, "%s", path ? path : "?");
		break;
	case CTR_SERVICE:
	case CTR_SCOPE:
		snprintf(buf, len, "%s", ci->name);
		break;
	case CTR_POD:
		if (ci->name[0])
			snprintf(buf, len, "pod:%s", ci->name);
		else
			snprintf(buf, len, "pod:%s%s%.12s", ci->pod, ci->id[0] ? "/" : "",
				 ci->id);
		break;
	default:
		if (ci->name[0])
			snprintf(buf, len, "%s:%s", k, ci->name);
		else
			snprintf(buf, len, "%s:%.12s", k, ci->id);
	}
	return buf - o;
}
