# SPDX-License-Identifier: GPL-2.0
"""System tests: real BPF on real loop devices backed by files on tmpfs.

Every loop device and file a test makes is removed again, also when the test
fails or the run is interrupted (SIGINT/SIGTERM become KeyboardInterrupt, so
fixture teardown runs); devices left by a run that was killed outright are
detached at the start of the next one.  With CI=true a test that cannot run
is a failure, never a skip.

Here: pytest's hooks and the fixtures; what a test module imports (the
devices, tracers and checks the fixtures are built on) is in helpers.py.
"""
import glob
import os
import pwd
import random
import re
import shutil
import signal
import subprocess
import time

import pytest

from helpers import IOLENS, OWN, PREFIX, TMPFS, TRACEFS, Background, FaultyDisk, Loop, PlainUser, Serve, Stat, TraceInstance, \
    Tracer, Zram, mounted_ext4, rmdir_cgroup, tracefs_instances, wait_idle
from tracegen import synthetic_trace

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _sigterm(signum, frame):
    raise KeyboardInterrupt("SIGTERM")


signal.signal(signal.SIGTERM, _sigterm)


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI a skipped test is a test that did not run: fail it."""
    outcome = yield
    rep = outcome.get_result()
    if CI and rep.skipped and call.excinfo is not None:
        rep.outcome = "failed"
        rep.longrepr = "CI=true: a system test that cannot run is a failure: %s" % (
            call.excinfo.value,)


def _stale(path):
    """Whether `path` was made by a test session no longer running."""
    m = re.match(re.escape(PREFIX) + r"(\d+)-", os.path.basename(path))
    return not m or not os.path.exists("/proc/" + m.group(1))


def _stale_loops():
    out = subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r"(/dev/loop\d+):.*\((.*)\)", line)
        if m:
            # A backing file of a session, or in a folder of one (faultfs).
            for part in m.group(2).replace(" (deleted)", "").split("/"):
                if part.startswith(PREFIX) and _stale(part):
                    yield m.group(1), m.group(2)
                    break


def pytest_sessionstart(session):
    if os.geteuid() != 0:
        return
    for dev, backing in _stale_loops():
        subprocess.run(["losetup", "-d", dev], check=False)
    for u in pwd.getpwall():
        if u.pw_name.startswith(PREFIX) and _stale(u.pw_name):
            subprocess.run(["userdel", u.pw_name], check=False)
    # tracefs instances outlive the mount a test session left.
    try:
        instances = glob.glob(os.path.join(tracefs_instances(), PREFIX + "*"))
    except pytest.skip.Exception:
        instances = []
    for f in glob.glob(os.path.join(TMPFS, PREFIX + "*")) + glob.glob("/etc/" + PREFIX + "*") + \
            instances:
        if _stale(f):
            if f in instances:
                os.rmdir(f)
            elif os.path.isdir(f) and not os.path.islink(f):
                # faultfs's mount, its daemon gone with the session.
                subprocess.run(["umount", "-l", f], check=False, capture_output=True)
                shutil.rmtree(f, ignore_errors=True)
            else:
                os.unlink(f)


@pytest.fixture(autouse=True)
def coverage_apart(request):
    """With IOLENS_COVERAGE_DIR (tools/san_selection.py), the gcov counts of
    each test's iolens processes go to a folder of that test's own."""
    top = os.environ.get("IOLENS_COVERAGE_DIR")
    if not top:
        yield
        return
    where = os.path.join(top, re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.nodeid))
    os.makedirs(where, mode=0o777, exist_ok=True)
    os.chmod(where, 0o777)
    os.environ["GCOV_PREFIX"] = where
    try:
        yield
    finally:
        del os.environ["GCOV_PREFIX"]


@pytest.fixture(autouse=True)
def booted_state():
    """Every test starts as a machine boots: tracefs not mounted (debugfs is
    not either, here).  What iolens needs it must mount itself; only the
    ground-truth tracer below mounts tracefs, for its own use."""
    if os.geteuid() == 0 and os.path.ismount(TRACEFS):
        # Lazy: a tracer of an earlier test may still hold a file open.
        subprocess.run(["umount", "-l", TRACEFS], check=False)
    yield


@pytest.fixture(scope="session")
def iolens():
    if not os.access(IOLENS, os.X_OK):
        pytest.skip("iolens binary not built: %s" % IOLENS)
    return IOLENS


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "matrix: needs a kernel of the kernel matrix (device-mapper, md); "
        "run by tests/kernels/run_matrix.py, left out of make systest")
    config.addinivalue_line(
        "markers", "nosan: measures memory or time, which ASan changes; "
        "left out of make san-systest")
    config.addinivalue_line(
        "markers", "fast: one or two quick tests of each command, seconds each; "
        "with the unit tests, make check")


def pytest_collection_modifyitems(config, items):
    """IOLENS_SAN_SKIP names a file of tests to leave out (make san-systest:
    tests/system/san_skip.txt, those whose every line of iolens's C code
    other tests run too, written by tools/san_selection.py).
    IOLENS_TEST_SHUFFLE=SEED runs the modules in a random order, and each
    module's tests (tools/test_shake.py's random mode)."""
    path = os.environ.get("IOLENS_SAN_SKIP")
    if path:
        with open(path) as f:
            skip = {line.strip() for line in f if line.strip() and not line.startswith("#")}
        config.hook.pytest_deselected(items=[i for i in items if i.nodeid in skip])
        items[:] = [i for i in items if i.nodeid not in skip]
    seed = os.environ.get("IOLENS_TEST_SHUFFLE")
    if seed:
        rng = random.Random(seed)
        modules = {}
        for i in items:
            modules.setdefault(i.module.__name__, []).append(i)
        order = list(modules.values())
        rng.shuffle(order)
        for m in order:
            rng.shuffle(m)
        items[:] = [i for m in order for i in m]


@pytest.fixture(scope="session")
def root():
    if os.geteuid() != 0:
        pytest.skip("system tests need root (real BPF, loop devices)")


@pytest.fixture
def plain_user(root):
    """A real unprivileged user with a home of its own (helpers.PlainUser),
    removed after the test."""
    u = PlainUser()
    try:
        yield u
    finally:
        u.close()


@pytest.fixture
def trace_file(root):
    """A small trace of root's to report on (tracegen's, 100 requests)."""
    path = os.path.join(TMPFS, OWN + "in.iol")
    synthetic_trace(path, 100)
    try:
        yield path
    finally:
        os.unlink(path)


@pytest.fixture
def zram(root):
    if not os.path.exists("/sys/class/zram-control"):
        subprocess.run(["modprobe", "zram", "num_devices=0"], check=False,
                       capture_output=True)
    z = Zram()
    try:
        yield z
    finally:
        z.close()


@pytest.fixture
def loop(root):
    lo = Loop()
    try:
        yield lo
    finally:
        lo.close()


@pytest.fixture
def partition(loop):
    """One partition on the loop device, sectors 2048-34815, in a DOS
    partition table (sfdisk).  A kernel that reads partition tables (every
    distribution's; the kernel matrix's) finds it when asked to re-read
    (BLKRRPART, as losetup -P); this machine's kernel reads none, and partx
    adds it (BLKPG)."""
    subprocess.run(["sfdisk", "-q", "--no-reread", loop.dev],
                   input="label: dos\nstart=2048, size=32768, type=83\n",
                   text=True, check=True, capture_output=True)
    part = loop.dev + "p1"
    try:
        subprocess.run(["blockdev", "--rereadpt", loop.dev], check=False,
                       capture_output=True)
        if not os.path.exists("/sys/class/block/%sp1" % loop.name):
            subprocess.run(["partx", "-a", loop.dev], check=True,
                           capture_output=True)
        for _ in range(100):
            if os.path.exists(part) and \
                    os.path.exists("/sys/class/block/%sp1" % loop.name):
                break
            time.sleep(0.05)
        assert os.path.exists(part)
        wait_idle(loop)
        yield part
    finally:
        subprocess.run(["partx", "-d", loop.dev], check=False,
                       capture_output=True)


@pytest.fixture
def ext4(loop, tmp_path):
    """ext4 made on the test's loop device, mounted under tmp_path."""
    with mounted_ext4(loop.dev, tmp_path) as mnt:
        yield mnt


@pytest.fixture
def tracefs(loop):
    t = TraceInstance(loop)
    try:
        yield t
    finally:
        t.close()


def started(make):
    """A fixture's function that starts `make(...)`s, each killed at the
    end of the test if still running."""
    procs = []

    def start(*args):
        t = make(*args)
        procs.append(t)
        return t
    try:
        yield start
    finally:
        for t in procs:
            t.kill()


@pytest.fixture
def tracer():
    yield from started(Tracer)


@pytest.fixture
def background():
    yield from started(Background)


@pytest.fixture
def stat():
    """Starts `Stat`s (`iolens stat -j` of the build under test), each
    killed at the end."""
    yield from started(lambda args: Stat(IOLENS, args))


@pytest.fixture
def faulty(root):
    """A disk whose byte ranges the test makes fail or hang (FaultyDisk)."""
    d = FaultyDisk()
    try:
        yield d
    finally:
        d.close()


@pytest.fixture
def serve(root):
    yield from started(Serve)


@pytest.fixture
def blkio_cgroups():
    """Makes cgroups of the hierarchy that holds the io (blkio) controller,
    removed again at the end: (its label prefix, the path) per name."""
    made = []
    with open("/proc/self/mountinfo") as f:
        mounts = [(l.split()[4], l.split(" - ")[1].split()) for l in f]
    base = prefix = None
    for mnt, (fstype, _, opts) in mounts:
        if fstype == "cgroup" and "blkio" in opts.split(","):
            base, prefix = mnt, "blkio:"
        elif fstype == "cgroup2" and base is None:
            try:
                with open(os.path.join(mnt, "cgroup.controllers")) as c:
                    if "io" in c.read().split():
                        base, prefix = mnt, ""
            except OSError:
                pass
    assert base, "no cgroup hierarchy with the io controller"

    def make(name):
        path = os.path.join(base, OWN + name)
        os.mkdir(path)
        made.append(path)
        return prefix + "/" + OWN + name, path
    try:
        yield make
    finally:
        for path in made:
            rmdir_cgroup(path)
