// SPDX-License-Identifier: GPL-2.0
/* Identities from cgroup paths (lib/container.c), as systemd, Docker,
 * Podman, containerd, CRI-O and the kubelet name them with either cgroup
 * driver.  No manager's files exist here: names stay empty. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include "lib/container.h"

#define ID "3f2a1b9c0d1e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c"
#define UID "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9"
#define UID_ "0a1b2c3d_4e5f_6071_8293_a4b5c6d7e8f9"

struct want {
	const char *path;
	enum ctr_kind kind;
	const char *id, *pod, *name, *label;
};

static const struct want paths[] = {
	{ "/system.slice/nginx.service", CTR_SERVICE, "", "", "nginx.service", "nginx.service" },
	{ "/user.slice/user-1000.slice/session-2.scope", CTR_SCOPE, "", "",
	  "session-2.scope", "session-2.scope" },
	{ "/user.slice/user-1000.slice/user@1000.service/app.slice/app-x-9.scope",
	  CTR_SCOPE, "", "", "app-x-9.scope", "app-x-9.scope" },
	{ "/system.slice/docker-" ID ".scope", CTR_DOCKER, ID, "", "", "docker:3f2a1b9c0d1e" },
	{ "/docker/" ID, CTR_DOCKER, ID, "", "", "docker:3f2a1b9c0d1e" },
	{ "blkio:/system.slice/docker-" ID ".scope", CTR_DOCKER, ID, "", "",
	  "docker:3f2a1b9c0d1e" },
	{ "/machine.slice/libpod-" ID ".scope", CTR_PODMAN, ID, "", "", "podman:3f2a1b9c0d1e" },
	{ "/system.slice/cri-containerd-" ID ".scope", CTR_CONTAINERD, ID, "", "",
	  "containerd:3f2a1b9c0d1e" },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/cri-containerd-" ID ".scope", CTR_POD, ID, UID, "",
	  "pod:" UID "/3f2a1b9c0d1e" },
	{ "/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope", CTR_POD, ID, UID,
	  "", "pod:" UID "/3f2a1b9c0d1e" },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice",
	  CTR_POD, "", UID, "", "pod:" UID },
	{ "/kubepods/burstable/pod" UID "/" ID, CTR_POD, ID, UID, "",
	  "pod:" UID "/3f2a1b9c0d1e" },
	/* kind's nesting. */
	{ "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
	  "kubelet-kubepods-besteffort-pod" UID_ ".slice/cri-containerd-" ID ".scope",
	  CTR_POD, ID, UID, "", "pod:" UID "/3f2a1b9c0d1e" },
	/* Not quite: a short id, capitals, no kubepods above the pod. */
	{ "/system.slice/docker-3f2a.scope", CTR_SCOPE, "", "", "docker-3f2a.scope",
	  "docker-3f2a.scope" },
	{ "/docker/3F2A1B9C0D1E4F5A6B7C8D9E0F1A2B3C4D5E6F708192A3B4C5D6E7F8091A2B3C",
	  CTR_NONE, "", "", "", "/docker/3F2A1B9C0D1E4F5A6B7C8D9E0F1A2B3C4D5E6F708192A3B4C5D6E7F8091A2B3C" },
	{ "/x/pod" UID "/" ID, CTR_NONE, "", "", "", "/x/pod" UID "/" ID },
	/* A pod folder of a bad uid (a "g" at its end) is none. */
	{ "/kubepods/pod0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8fg/x", CTR_NONE, "", "", "",
	  "/kubepods/pod0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8fg/x" },
	{ "/", CTR_NONE, "", "", "", "/" },
	{ "/a.slice", CTR_NONE, "", "", "", "/a.slice" },
};

static void test_paths(void **state)
{
	char buf[512];

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const struct want *w = &paths[i];
		struct ctr_ident ci;

		ctr_ident_of(w->path, &ci);
		assert_int_equal(ci.kind, w->kind);
		assert_string_equal(ci.id, w->id);
		assert_string_equal(ci.pod, w->pod);
		assert_string_equal(ci.name, w->name);
		assert_string_equal(ctr_ident_label(&ci, w->path, buf, sizeof(buf)), w->label);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
