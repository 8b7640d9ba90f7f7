# SPDX-License-Identifier: GPL-2.0
"""I/O by who people ask about: top's group views (--group user, cgroup,
container), stat --by cgroup and serve's identity labels.  The cgroups are
made by the test with the names systemd, Docker and the kubelet give theirs
(nested under a folder of the test's own), the managers' name files in a
mount namespace of iolens's own (tmpfs over /var/lib and /var/log: the
machine's are never touched).  Ground truth: what each reader did, and on
cgroup2 with the io and memory controllers the kernel's own io.stat."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import IOLENS, OWN, LiveOutput, Serve, Tmux, rmdir_cgroup, samples, wait_idle

UID = "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9"
CID_K = "3f2a1b9c0d1e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c"
CID_D = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d"
CID_P = "5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b"
POD = (OWN + "k8s.slice/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s"
       ".slice/cri-containerd-%s.scope" % (UID.replace("-", "_"), CID_K))
DOCKER = OWN + "d.slice/docker-%s.scope" % CID_D
PODMAN = OWN + "m.slice/libpod-%s.scope" % CID_P

# What dockerd, Podman (containers/storage: another container before and
# after its entry) and the kubelet write, for iolens to name them by.
NAMED = r"""
mount -t tmpfs iolens-test /var/lib && mount -t tmpfs iolens-test /var/log &&
mkdir -p /var/lib/docker/containers/$D /var/log/pods/default_web-7f9c_$U /var/log/containers &&
printf '{"ID":"%s","Created":"x","Name":"/web","Driver":"overlay2"}' $D \
    > /var/lib/docker/containers/$D/config.v2.json &&
mkdir -p /var/lib/containers/storage/overlay-containers &&
printf '[{"id":"%s","names":["other"]},{"id":"%s","names":["db"],"image":"i"},{"id":"%s","names":["late"]}]' \
    $D $P $K > /var/lib/containers/storage/overlay-containers/containers.json &&
: > /var/log/containers/web-7f9c_default_app-$K.log && exec "$@"
"""


def named(args):
    """args run in a mount namespace of their own where Docker and the
    kubelet have named the containers "web" and default/web-7f9c/app."""
    return (["env", "U=" + UID, "K=" + CID_K, "D=" + CID_D, "P=" + CID_P, "unshare", "-m",
             "--propagation", "private", "sh", "-c", NAMED, "sh"] + args)


def hierarchies():
    """The mounts a cgroup is made in: cgroup2's, and v1's blkio, where a
    hybrid machine charges I/O."""
    with open("/proc/self/mountinfo") as f:
        mounts = [(l.split()[4], l.split(" - ")[1].split()) for l in f]
    return [m for m, (fs, _, o) in mounts
            if fs == "cgroup2" or (fs == "cgroup" and "blkio" in o.split(","))]


def cgroup2_root():
    with open("/proc/self/mountinfo") as f:
        for l in f:
            if l.split(" - ")[1].split()[0] == "cgroup2":
                return l.split()[4]
    pytest.fail("no cgroup2 mount")


@pytest.fixture
def io_charged(root):
    """Where cgroup2 holds the io controller: io and memory handed to the
    cgroups below its root, as systemd has them on every boot of a Debian
    machine (the kernel matrix's guests boot without systemd).  A hybrid
    machine's v1 blkio charges each cgroup as it is."""
    base = cgroup2_root()
    ctl = os.path.join(base, "cgroup.subtree_control")
    with open(os.path.join(base, "cgroup.controllers")) as f:
        if "io" not in f.read().split():
            yield None
            return
    with open(ctl) as f:
        old = f.read().split()
    with open(ctl, "w") as f:
        f.write("+io +memory")
    try:
        yield base
    finally:
        for c in ("io", "memory"):
            if c not in old:
                with open(ctl, "w") as f:
                    f.write("-" + c)


@pytest.fixture
def shaped(root):
    """Makes cgroup REL in every hierarchy that counts I/O (its folders
    too, which hand on the io and memory controllers their parent has, as
    systemd's slices do): the paths a process joins.  All removed at the
    end."""
    made = []

    def make(rel):
        paths = []
        for base in hierarchies():
            path = base
            for part in rel.split("/"):
                parent, path = path, os.path.join(path, part)
                if not os.path.isdir(path):
                    os.mkdir(path)
                    made.append(path)
                hand_on(parent, path, path != os.path.join(base, rel))
            paths.append(path)
        return paths
    try:
        yield make
    finally:
        for path in reversed(made):
            rmdir_cgroup(path)


def hand_on(parent, path, folder):
    """A cgroup2 folder gets the io and memory controllers its parent gave
    it, for the cgroups below."""
    ctl = os.path.join(parent, "cgroup.subtree_control")
    if not folder or not os.path.exists(ctl):
        return
    with open(ctl) as f:
        on = [c for c in f.read().split() if c in ("io", "memory")]
    if on:
        with open(os.path.join(path, "cgroup.subtree_control"), "w") as f:
            f.write(" ".join("+" + c for c in on))


# Joins its cgroups (and with a uid, drops to it after opening the disk),
# waits for a line, does n O_DIRECT reads of bs bytes, says "done" and
# stays until its stdin closes: a process top still sees.
READER = r"""
import mmap, os, sys
paths, dev, n, bs, uid = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
for p in filter(None, paths.split(",")):
    with open(p + "/cgroup.procs", "w") as f:
        f.write("0")
fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
if uid >= 0:
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
buf = mmap.mmap(-1, bs)
print("ready", flush=True)
sys.stdin.readline()
for i in range(n):
    assert os.preadv(fd, [buf], i * bs) == bs
print("done", flush=True)
sys.stdin.readline()
"""


class Reader:
    def __init__(self, paths, dev, n, bs, uid=-1):
        self.bytes = n * bs
        self.p = subprocess.Popen([sys.executable, "-c", READER, ",".join(paths), dev,
                                   str(n), str(bs), str(uid)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.p.stdout.readline() == "ready\n"

    def go(self):
        self.p.stdin.write("go\n")
        self.p.stdin.flush()

    def wait_done(self):
        assert self.p.stdout.readline() == "done\n"

    def close(self):
        self.p.kill()
        self.p.wait()


class Frames:
    """`iolens top -j` (args) in the background, its frames as they come."""

    def __init__(self, args):
        self.out = LiveOutput()
        self.p = subprocess.Popen(args, stdout=self.out.w, stderr=subprocess.PIPE, text=True)

    def frames(self):
        return [json.loads(l) for l in self.out.read().splitlines(True) if l.endswith("\n")]

    def wait(self, n, timeout=60):
        """Until it printed n frames (TCG takes seconds to attach)."""
        end = time.time() + timeout
        while len(self.frames()) < n:
            assert self.p.poll() is None, self.p.stderr.read()
            assert time.time() < end, "%d frames in %d s" % (len(self.frames()), timeout)
            time.sleep(0.05)

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        _, err = self.p.communicate(timeout=30)
        assert self.p.returncode == 0, err
        return self.frames()

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        self.out.close()


def group_sums(frames, key):
    """{group name: sum of key over the frames}, and the last frame's
    groups by name."""
    sums, last = {}, {}
    for f in frames:
        for g in f["groups"]:
            sums[g["group"]] = sums.get(g["group"], 0) + (g[key] or 0)
            last[g["group"]] = g
    return sums, last


def lat_counts(reports):
    """{cgroup path (of the test's), without a v1 prefix: requests} in
    lat --by cgroup's reports."""
    n = {}
    for rep in reports:
        for h in rep["histograms"]:
            if OWN in h["cgroup"]:
                k = h["cgroup"].split(":", 1)[-1]
                n[k] = n.get(k, 0) + h["count"]
    return n


def test_groups_of_containers_users_and_cgroups(iolens, loop, io_charged, shaped):
    """A Kubernetes pod's container, a Docker and a Podman container
    (cgroups of the names their managers give, Docker's, Podman's and the
    kubelet's name files there) and a reader running as nobody each do
    known O_DIRECT reads.  top --group container names the pod
    default/web-7f9c/app, Docker's "web" and Podman's "db" (its entry
    between two others') with their ids; its block reads are each one's
    exactly, as in
    --group cgroup (the paths) and --group user (nobody's); stat --by
    cgroup counts each cgroup's bytes exactly and serve --labels cgroup
    labels them with the pod and container."""
    pod, docker, podman = shaped(POD), shaped(DOCKER), shaped(PODMAN)
    wait_idle(loop)
    readers = [Reader(pod, loop.dev, 30, 65536), Reader(docker, loop.dev, 20, 65536),
               Reader([], loop.dev, 12, 65536, uid=65534), Reader(podman, loop.dev, 7, 65536)]
    tops = {g: Frames((named if g == "container" else list)(
        [IOLENS, "top", "-j", "-d", "0.5", "--group", g])) for g in ("container", "cgroup", "user")}
    st = Frames([IOLENS, "stat", "-y", "-j", "--by", "cgroup", "-d", loop.name, "0.5"])
    lat = Frames([IOLENS, "lat", "-j", "--by", "cgroup", "-d", loop.name, "0.5"])
    serve = None
    try:
        serve = Serve(["-d", loop.name, "--labels", "cgroup"], wrap=named)
        for t in list(tops.values()) + [st, lat]:
            t.wait(1)
        for r in readers:
            r.go()
        for r in readers:
            r.wait_done()
        wait_idle(loop)
        n = {g: len(t.frames()) for g, t in tops.items()}
        for g, t in tops.items():
            t.wait(n[g] + 2)
        frames = {g: t.stop() for g, t in tops.items()}
        stats, lats = st.stop(), lat.stop()
        time.sleep(2.2)  # a new cgroup's path can take serve's collector two reads
        body = serve.metrics()
    finally:
        for t in list(tops.values()) + [st, lat]:
            t.kill()
        for r in readers:
            r.close()
        if serve:
            serve.kill()
    pod_id, docker_id, nobody, podman_id = readers

    sums, last = group_sums(frames["container"], "block_read_bytes")
    assert sums["pod:default/web-7f9c/app"] == pod_id.bytes
    assert sums["docker:web"] == docker_id.bytes
    g = last["pod:default/web-7f9c/app"]
    assert (g["kind"], g["container_id"], g["pod_uid"], g["name"]) == \
        ("pod", CID_K, UID, "default/web-7f9c/app")
    assert g["pids"] == [pod_id.p.pid] and g["processes"] == 1
    assert g["cgroup"] == "/" + POD
    g = last["docker:web"]
    assert (g["kind"], g["container_id"], g["name"]) == ("docker", CID_D, "web")
    assert "pod_uid" not in g and g["pids"] == [docker_id.p.pid]
    assert sums["podman:db"] == podman_id.bytes
    g = last["podman:db"]
    assert (g["kind"], g["container_id"], g["name"]) == ("podman", CID_P, "db")
    # Each process is in the frame's process list too, once.
    pids = [p["pid"] for p in frames["container"][-1]["processes"]]
    assert all(pids.count(r.p.pid) == 1 for r in readers)

    sums, last = group_sums(frames["cgroup"], "block_read_bytes")
    assert sums["/" + POD] == pod_id.bytes
    assert sums["/" + DOCKER] == docker_id.bytes
    assert last["/" + POD]["pids"] == [pod_id.p.pid]

    sums, last = group_sums(frames["user"], "block_read_bytes")
    assert sums["nobody"] == nobody.bytes
    assert last["nobody"]["uid"] == 65534 and nobody.p.pid in last["nobody"]["pids"]

    by_cg = {}
    for rep in stats:
        for d in rep["devices"]:
            for c in d.get("cgroups", []):
                by_cg[c["cgroup"]] = by_cg.get(c["cgroup"], 0) + c["read_bytes"]
    assert {k.split(":", 1)[-1]: v for k, v in by_cg.items() if OWN in k} == \
        {"/" + POD: pod_id.bytes, "/" + DOCKER: docker_id.bytes, "/" + PODMAN: podman_id.bytes}

    assert lat_counts(lats) == {"/" + POD: 30, "/" + DOCKER: 20, "/" + PODMAN: 7}

    got = {}
    for labels, v in samples(body, "iolens_cgroup_bytes_total").items():
        lab = dict(labels)
        if OWN in lab["cgroup"] and lab["op"] == "read":
            got[lab["cgroup"].split(":", 1)[-1]] = (v, {k: lab[k] for k in lab if k not in (
                "cgroup", "op", "device")})
    assert got == {
        "/" + POD: (pod_id.bytes, {"container_id": CID_K, "pod_uid": UID, "namespace": "default",
                                   "pod": "web-7f9c", "container": "app"}),
        "/" + DOCKER: (docker_id.bytes, {"runtime": "docker", "container_id": CID_D,
                                         "container_name": "web"}),
        "/" + PODMAN: (podman_id.bytes, {"runtime": "podman", "container_id": CID_P,
                                         "container_name": "db"})}


def cgroup_reads(body, below):
    """{last component: (read bytes, identity labels)} of the cgroups of
    this test's folder `below` in serve's scrape `body`."""
    got = {}
    for labels, v in samples(body, "iolens_cgroup_bytes_total").items():
        lab = dict(labels)
        if OWN + below in lab["cgroup"] and lab["op"] == "read":
            got[lab["cgroup"].rsplit("/", 1)[-1]] = (v, {k: lab[k] for k in lab if k not in (
                "cgroup", "op", "device")})
    return got


def io_stat(path, dev):
    """The kernel's wbytes of cgroup `path` on `dev` ("7:0")."""
    with open(os.path.join(path, "io.stat")) as f:
        for line in f:
            if line.split()[0] == dev:
                return int(dict(kv.split("=") for kv in line.split()[1:])["wbytes"])
    return 0


def dirty_in(cgroup, path, mib):
    """A process of `cgroup` writes mib MiB to the page cache of `path`."""
    subprocess.run(["sh", "-c", 'echo $$ > %s/cgroup.procs && exec dd if=/dev/zero of=%s '
                    'bs=1M count=%d status=none' % (cgroup, path, mib)], check=True, timeout=120)


def test_a_users_subtree_claims_no_container(iolens, loop, plain_user, shaped):
    """Issue 46: in a cgroup subtree delegated to a user (as systemd's
    user@UID.service is), the user made docker-<a real id>.scope and
    nginx.service, and top --group container merged the user's processes
    into the real container's and service's rows.  Names count where root
    made the folders: the user's rows are said to be theirs, apart, each
    with its own bytes exactly."""
    docker, service = shaped(DOCKER), shaped(OWN + "s.slice/nginx.service")
    delegated = shaped(OWN + "u.slice")
    theirs = []
    try:
        for base in delegated:
            os.chown(base, plain_user.uid, plain_user.gid)
            for name in ("docker-%s.scope" % CID_D, "nginx.service"):
                plain_user.run("mkdir", os.path.join(base, name))
                theirs.append(os.path.join(base, name))
        spoofs = [[p for p in theirs if p.endswith(n)] for n in (".scope", ".service")]
        wait_idle(loop)
        readers = [Reader(docker, loop.dev, 20, 65536), Reader(spoofs[0], loop.dev, 9, 65536),
                   Reader(service, loop.dev, 6, 65536), Reader(spoofs[1], loop.dev, 4, 65536)]
        top = Frames(named([IOLENS, "top", "-j", "-d", "0.5", "--group", "container"]))
        serve = None
        try:
            serve = Serve(["-d", loop.name, "--labels", "cgroup"], wrap=named)
            top.wait(1)
            for r in readers:
                r.go()
            for r in readers:
                r.wait_done()
            wait_idle(loop)
            top.wait(len(top.frames()) + 2)
            frames = top.stop()
            # Until serve's collector has named both new cgroups.
            end = time.time() + 30
            while len(cgroup_reads(serve.metrics(), "u.slice/")) < 2 and time.time() < end:
                time.sleep(0.2)
            served = cgroup_reads(serve.metrics(), "u.slice/")
        finally:
            top.kill()
            if serve:
                serve.kill()
            for r in readers:
                r.close()
    finally:
        for path in reversed(theirs):
            rmdir_cgroup(path)
    real, spoof, real_svc, spoof_svc = readers
    mine = "uid %d: " % plain_user.uid
    sums, last = group_sums(frames, "block_read_bytes")
    assert sums["docker:web"] == real.bytes
    assert sums[mine + "docker:web"] == spoof.bytes
    assert sums["nginx.service"] == real_svc.bytes
    assert sums[mine + "nginx.service"] == spoof_svc.bytes
    assert "owner_uid" not in last["docker:web"]
    assert last[mine + "docker:web"]["owner_uid"] == plain_user.uid
    assert last[mine + "nginx.service"]["owner_uid"] == plain_user.uid
    # serve claims no unit or container for them: the owner alone.
    assert served == {"docker-%s.scope" % CID_D: (spoof.bytes, {"owner_uid": str(plain_user.uid)}),
                      "nginx.service": (spoof_svc.bytes, {"owner_uid": str(plain_user.uid)})}


@pytest.mark.matrix
def test_writeback_charged_to_the_cgroup_that_dirtied_it(iolens, loop, ext4, io_charged, shaped):
    """Two cgroups each dirty 8 MiB of files on ext4; sync makes the
    flusher write them.  top's cgroup view, stat --by cgroup and serve
    --labels cgroup charge each cgroup the bytes its own io.stat counts
    written (within 1%: the few metadata blocks sync writes itself are
    charged by the kernel to the cgroup that first read them), nearly all
    of it the flusher's; lat --by cgroup holds its requests."""
    assert io_charged, "cgroup v1 holds the io controller here: the kernel charges the root"
    dev = "%d:%d" % (loop.major, loop.minor)
    cgs = {rel: shaped(rel)[0] for rel in (OWN + "wb-a", OWN + "wb-b")}
    subprocess.run(["sync"], check=True)
    wait_idle(loop)
    top = Frames([IOLENS, "top", "-j", "-d", "0.5", "--group", "cgroup"])
    st = Frames([IOLENS, "stat", "-y", "-j", "--by", "cgroup", "-d", loop.name, "0.5"])
    lat = Frames([IOLENS, "lat", "-j", "--by", "cgroup", "-d", loop.name, "0.5"])
    serve = None
    try:
        serve = Serve(["-d", loop.name, "--labels", "cgroup"])
        for t in (top, st, lat):
            t.wait(1)
        before = {rel: io_stat(p, dev) for rel, p in cgs.items()}
        for i, p in enumerate(cgs.values()):
            dirty_in(p, os.path.join(ext4, "f%d" % i), 8)
        subprocess.run(["sync"], check=True)
        wait_idle(loop)
        truth = {rel: io_stat(p, dev) - before[rel] for rel, p in cgs.items()}
        n = len(top.frames())
        top.wait(n + 2)
        frames, stats, lats = top.stop(), st.stop(), lat.stop()
        time.sleep(2.2)  # a new cgroup's path can take serve's collector two reads
        body = serve.metrics()
    finally:
        for t in (top, st, lat):
            t.kill()
        if serve:
            serve.kill()
    served = {dict(k)["cgroup"]: v for k, v in samples(body, "iolens_cgroup_bytes_total").items()
              if dict(k)["op"] == "write"}
    assert all("writeback_note" not in f for f in frames)
    charged, _ = group_sums(frames, "block_write_bytes")
    flushed, _ = group_sums(frames, "writeback_bytes")
    by_cg, reqs = {}, {}
    for rep in stats:
        for d in rep["devices"]:
            for c in d.get("cgroups", []):
                by_cg[c["cgroup"]] = by_cg.get(c["cgroup"], 0) + c["write_bytes"]
                reqs[c["cgroup"]] = (reqs.get(c["cgroup"], 0) + c["write_requests"] +
                                     c["read_requests"])
    # lat's histograms of each cgroup hold its requests, as stat counts them.
    assert lat_counts(lats) == {k: v for k, v in reqs.items() if OWN in k}
    for rel, want in truth.items():
        k = "/" + rel
        print("%s: io.stat wbytes %d; top %d (of it the flusher's %d), stat %d, serve %d" %
              (rel, want, charged[k], flushed[k], by_cg[k], served[k]))
        assert want >= 8 << 20
        assert abs(charged[k] - want) <= want / 100, (rel, charged, truth)
        assert flushed[k] >= want * 0.95
        assert abs(by_cg[k] - want) <= want / 100, (rel, by_cg, truth)
        assert abs(served[k] - want) <= want / 100, (rel, served, truth)


def test_writeback_where_cgroup_v1_charges_the_root(iolens, loop, ext4, shaped):
    """On this hybrid machine (blkio on v1) the kernel charges the flusher's
    writes to the root blkcg: the group views say so on a line of their
    own and leave them with the flusher, and the writes of the cgroup that
    dirtied the pages stay 0."""
    if "io" in open(os.path.join(cgroup2_root(), "cgroup.controllers")).read().split():
        pytest.fail("cgroup2 has the io controller here: the matrix's test covers it")
    cg = shaped(OWN + "wb-v1")
    subprocess.run(["sync"], check=True)
    wait_idle(loop)
    top = Frames([IOLENS, "top", "-j", "-d", "0.5", "--group", "cgroup"])
    st = Frames([IOLENS, "stat", "-y", "-j", "--by", "cgroup", "-d", loop.name, "0.5"])
    try:
        top.wait(1)
        st.wait(1)
        subprocess.run(["sh", "-c", "for p in %s; do echo $$ > $p/cgroup.procs; done && "
                        "exec dd if=/dev/zero of=%s/f bs=1M count=4 status=none"
                        % (" ".join(cg), ext4)], check=True, timeout=60)
        subprocess.run(["sync"], check=True)
        wait_idle(loop)
        top.wait(len(top.frames()) + 2)
        frames, stats = top.stop(), st.stop()
    finally:
        top.kill()
        st.kill()
    assert all(f["writeback_note"].startswith("writeback stays with the kernel's flusher")
               for f in frames + stats)
    written = {}
    for rep in stats:
        for c in rep["devices"][0]["cgroups"]:
            written[c["cgroup"]] = written.get(c["cgroup"], 0) + c["write_bytes"]
    assert written.get("blkio:/" + OWN + "wb-v1", 0) == 0 and written["blkio:/"] >= 4 << 20
    charged, _ = group_sums(frames, "block_write_bytes")
    assert charged.get("/" + OWN + "wb-v1", 0) == 0
    # The flusher's, in the root's group: the kernel threads'.
    assert charged["/"] >= 4 << 20
    wb = [w for f in frames for w in f["writeback"]]
    assert sum(w["bytes"] for w in wb if w["cgroup"] == "blkio:/") >= 4 << 20


def test_top_group_keys(iolens, loop, shaped):
    """g steps the table through users, cgroups, containers and back to
    processes, its titles PROCS and GROUP; t lists each group's processes
    under it; k refuses a group."""
    r = Reader(shaped(DOCKER), loop.dev, 1, 4096)
    t = Tmux(160, 50)
    try:
        t.keys("%s top -d 0.5" % IOLENS, "Enter")
        t.wait_for(lambda s: "COMMAND" in s)
        t.keys("g")
        t.wait_for(lambda s: "by user" in s and "PROCS" in s and "GROUP" in s and "root" in s)
        t.keys("g")
        # A path cut at its start to fit: its end says which.
        t.wait_for(lambda s: "by cgroup" in s and CID_D[-12:] + ".scope" in s)
        t.keys("g")
        t.wait_for(lambda s: "by container" in s and "docker:9e8d7c6b5a4f" in s)
        t.keys("t")

        def under_container(s):
            """The line after the container's: its process (a frame may
            come before the group has its row, or show another group's
            python3, pytest's own)."""
            lines = s.splitlines()
            at = [i for i, l in enumerate(lines) if l.rstrip().endswith("docker:9e8d7c6b5a4f")]
            return at and at[0] + 1 < len(lines) and lines[at[0] + 1] or ""

        s = t.wait_for(lambda s: "tree" in s and under_container(s).rstrip().endswith("`- python3"))
        assert under_container(s).split()[0] == str(r.p.pid), s
        t.keys("PPage", "PPage", "PPage", "PPage", "k")
        t.wait_for(lambda s: "a group, not a process: t lists its processes" in s)
        t.keys("g")
        t.wait_for(lambda s: "by " not in s.splitlines()[0] and " PID " in s)
        t.keys("q")
    finally:
        t.close()
        r.close()
