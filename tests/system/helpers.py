# SPDX-License-Identifier: GPL-2.0
"""What the system tests share, in one place: the devices they make (loop,
zram), the ground truth they read (/proc/diskstats, tracefs), and iolens's
commands run in the background with what reads their output.  Test modules
import from here; the fixtures built on these are in conftest.py, where
pytest finds them.  No test module imports another."""
import contextlib
import errno
import glob
import hashlib
import http.client
import json
import math
import mmap
import os
import pwd
import re
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import zlib

import pytest

IOLENS = os.environ.get("IOLENS", os.path.join(os.path.dirname(__file__),
                                                "../../build/iolens"))
TMPFS = "/dev/shm"
# Test programs built beside the iolens under test (the Makefile's
# $(OUT)/tests).
FAULTFS = os.path.join(os.path.dirname(os.path.abspath(IOLENS)), "tests", "faultfs")
PREFIX = "iolens-test-"
# What this session makes is named OWN...: the pid lets a session clean up
# after a killed one without touching those of another running at once.
OWN = "%s%d-" % (PREFIX, os.getpid())
TRACEFS = "/sys/kernel/tracing"
RELEASE = tuple(int(x) for x in re.findall(r"\d+", os.uname().release)[:2])
# block_io_start and block_io_done came in Linux 6.5.  Before, the task that
# submitted a request is known only as the one seen at its insert or issue:
# the submitter itself unless a kworker inserted or issued it (the kernel
# matrix's 6.1 guest), and iolens says which ("ctx").
IO_START = RELEASE >= (6, 5)
# A PREEMPT_RT kernel: code the mainline kernel runs non-preemptible can be
# preempted there.
RT = "PREEMPT_RT" in os.uname().version
SUBMIT_CTX = ("submit",) if IO_START else ("insert", "issue")


def losetup(backing, *args):
    """Attaches a loop device over `backing` with direct I/O, as fast as a
    device gets here; kernels before 6.6 have no O_DIRECT on tmpfs, and
    there (the kernel matrix's 6.1 guest) it runs without.  Its path."""
    for dio in ("on", "off"):
        p = subprocess.run(["losetup", "-f", "--show", "--direct-io=" + dio]
                           + list(args) + [backing],
                           capture_output=True, text=True)
        if p.returncode == 0:
            return p.stdout.strip()
    raise RuntimeError("losetup: " + p.stderr.strip())


# make test-shake's slow disk: every loop device a test makes is over a
# faultfs file whose reads and writes take this many microseconds more.
SLOW_DISK_US = int(os.environ.get("IOLENS_TEST_SLOW_DISK", "0"))


class FaultFs:
    """faultfs (faultfs.c) mounted on a folder of this session on tmpfs:
    its file `disk` of size_mb, each read and write `delay_us` slower."""

    def __init__(self, size_mb, delay_us=0):
        self.mnt = tempfile.mkdtemp(prefix=OWN + "faultfs-", dir=TMPFS)
        self.disk = os.path.join(self.mnt, "disk")
        self.proc = subprocess.Popen([FAULTFS, self.mnt, str(size_mb), str(delay_us)],
                                     stderr=subprocess.PIPE, text=True)
        try:
            for _ in range(100):
                if self.mounted() or self.proc.poll() is not None:
                    break
                time.sleep(0.05)
            assert self.mounted(), "faultfs did not mount: %s" % (
                self.proc.stderr.read() if self.proc.poll() is not None else "")
        except BaseException:
            self.close()
            raise

    def mounted(self):
        return os.path.exists(os.path.join(self.mnt, "ctl"))

    def ctl(self, command):
        with open(os.path.join(self.mnt, "ctl"), "w") as f:
            f.write(command)

    def counts(self):
        """{"failed": N, "held": N}: the reads and writes failed or held so
        far."""
        with open(os.path.join(self.mnt, "ctl")) as f:
            return {k: int(v) for k, v in (line.split() for line in f)}

    def close(self):
        """Unmounts it; its loop device must be gone."""
        if self.proc.poll() is None and self.mounted():
            self.ctl("clear")
        subprocess.run(["umount", self.mnt], check=False, capture_output=True)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.rmdir(self.mnt)


class Loop:
    """A loop device over a file on tmpfs (or over `backing`, which it
    leaves; or faultfs `fs`'s disk, which it unmounts at close()), direct
    I/O on where the kernel can; over a slow faultfs file with
    IOLENS_TEST_SLOW_DISK."""

    def __init__(self, size_mb=64, sector_size=512, backing=None, fs=None):
        self.fs = fs
        self.own = backing is None and fs is None
        self.backing = fs.disk if fs else backing
        self.dev = None
        try:
            if self.own and SLOW_DISK_US:
                self.fs = FaultFs(size_mb, SLOW_DISK_US)
                self.own, self.backing = False, self.fs.disk
            elif self.own:
                fd, self.backing = tempfile.mkstemp(prefix=OWN, dir=TMPFS)
                os.ftruncate(fd, size_mb << 20)
                os.close(fd)
            # -P: the kernel may read a partition table written later
            # (BLKRRPART), as on a distribution's kernel.
            self.dev = losetup(self.backing, "-P", "--sector-size", str(sector_size))
            self.name = os.path.basename(self.dev)
            st = os.stat(self.dev)
            self.major, self.minor = os.major(st.st_rdev), os.minor(st.st_rdev)
            self.size = size_mb << 20
            # A loop device keeps its queue settings from one attach to
            # the next: start from the kernel's defaults.
            with open("/sys/block/%s/queue/nomerges" % self.name, "w") as f:
                f.write("0")
            # Let whatever probes a new device (udev, partition scan) finish.
            wait_idle(self)
        except BaseException:
            self.close()
            raise

    def close(self):
        if self.dev:
            subprocess.run(["losetup", "-d", self.dev], check=False)
            # The kernel lets the backing file go once the device is idle
            # (losetup -d returns before): faultfs unmounts only then.
            if self.fs:
                for _ in range(200):
                    if not os.path.exists("/sys/block/%s/loop" % self.name):
                        break
                    time.sleep(0.05)
            self.dev = None
        if self.own and self.backing and os.path.exists(self.backing):
            os.unlink(self.backing)
        if self.fs:
            self.fs.close()
            self.fs = None

    def diskstats(self):
        return diskstats(self.name)


def wait_or_kill(proc, timeout):
    """Waits for `proc` up to `timeout` s, and kills it if it is still
    running then (also when the wait is interrupted)."""
    try:
        proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def failing_reads(disk, n, at, err=errno.EIO):
    """n direct 4 KiB reads by this process from `at` on, which the disk
    fails (each must end in `err`: the kernel's errno of the status, EIO
    for IOERR, ENODATA for MEDIUM), each followed by one from 0 on that
    succeeds: the diskstats before and after."""
    wait_idle(disk)
    before = disk.diskstats()
    fd = os.open(disk.dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, 4096)
    try:
        for i in range(n):
            with pytest.raises(OSError) as e:
                os.preadv(fd, [buf], at + i * 4096)
            assert e.value.errno == err
            assert os.preadv(fd, [buf], i * 4096) == 4096
    finally:
        os.close(fd)
        buf.close()
    wait_idle(disk)
    after = disk.diskstats()
    assert after["r_ios"] - before["r_ios"] == 2 * n
    return before, after


class FaultyDisk(Loop):
    """A loop device over faultfs's disk: the byte ranges the test names
    fail with EIO (fail()) or stay in flight until released (hold(),
    release())."""

    def __init__(self, size_mb=16):
        super().__init__(size_mb, fs=FaultFs(size_mb, SLOW_DISK_US))

    def fail(self, start, length):
        self.fs.ctl("fail %d %d" % (start, length))

    def hold(self, start, length):
        self.fs.ctl("hold %d %d" % (start, length))

    def release(self):
        self.fs.ctl("release")

    def counts(self):
        return self.fs.counts()

    def failing_reads(self, n=20, at=1 << 20):
        """failing_reads() of n reads that faultfs fails from `at` on: it
        counts each one failed."""
        self.fail(at, n * 4096)
        failed = self.counts()["failed"]
        before, after = failing_reads(self, n, at)
        assert self.counts()["failed"] - failed == n
        return before, after

    @contextlib.contextmanager
    def held_read(self, sector):
        """dd reading the 4 KiB at `sector`, which faultfs holds in flight
        until the block ends: its process, once the read is held."""
        self.hold(sector * 512, 4096)
        wait_idle(self)
        held = self.counts()["held"]
        reader = subprocess.Popen(["dd", "if=" + self.dev, "of=/dev/null", "bs=4k", "count=1",
                                   "skip=%d" % (sector // 8), "iflag=direct", "status=none"])
        try:
            for _ in range(200):
                if self.counts()["held"] > held:
                    break
                time.sleep(0.01)
            else:
                raise AssertionError("the read was never held")
            yield reader
        finally:
            self.release()
            wait_or_kill(reader, 10)


# Disks of real drivers: only in the kernel matrix's guests (tests marked
# `matrix`), which tests/kernels/run_matrix.py gives an NVMe controller, a
# virtio-scsi and a virtio-blk disk over images of its own, each with a
# serial of its own; null_blk and scsi_debug the tests make themselves.

class Disk:
    """A whole disk the kernel has, by name: what tests take of a Loop."""

    def __init__(self, name):
        self.name = name
        self.dev = "/dev/" + name
        st = os.stat(self.dev)
        self.major, self.minor = os.major(st.st_rdev), os.minor(st.st_rdev)
        with open("/sys/block/%s/size" % name) as f:
            self.size = int(f.read()) * 512
        wait_idle(self)

    def diskstats(self):
        return diskstats(self.name)

    def close(self):
        pass


def guest_disk(serial):
    """The disk whose qemu device carries `serial` (run_matrix.py): found
    by it, never by name, so that no test can take a machine's own disk.
    Drivers probe in the background (NVMe): waited for a while."""
    end = time.time() + 20
    while time.time() < end:
        for name in sorted(os.listdir("/sys/block")):
            for attr in ("serial", "device/serial", "device/vpd_pg80"):
                try:
                    with open("/sys/block/%s/%s" % (name, attr), "rb") as f:
                        if serial.encode() in f.read():
                            return Disk(name)
                except OSError:
                    pass
        time.sleep(0.2)
    pytest.fail("no disk of serial %s: this test runs in the kernel matrix's guests" % serial)


def modprobe(*args):
    subprocess.run(["modprobe"] + list(args), check=True, capture_output=True)


class NullBlk(Disk):
    """A null_blk device of its own (configfs), memory-backed so that
    reads return what was written; `attrs` are configfs's (submit_queues,
    badblocks, zoned, zone_size, irqmode, completion_nsec, ...); `tag`
    tells two apart."""

    def __init__(self, size_mb=64, tag="", **attrs):
        modprobe("null_blk", "nr_devices=0")
        if not os.path.isdir("/sys/kernel/config/nullb"):
            subprocess.run(["mount", "-t", "configfs", "none", "/sys/kernel/config"],
                           check=True)
        self.cfg = "/sys/kernel/config/nullb/" + OWN + "nullb" + tag
        os.mkdir(self.cfg)
        try:
            for k, v in [("size", size_mb), ("memory_backed", 1)] + list(attrs.items()):
                self.set(k, v)
            # Its disk is "nullb" and its index, or on newer kernels the
            # configfs folder's name: the one that appears.
            was = set(os.listdir("/sys/block"))
            self.set("power", 1)
            (name,) = set(os.listdir("/sys/block")) - was
            super().__init__(name)
        except BaseException:
            self.close()
            raise

    def set(self, attr, value):
        with open(os.path.join(self.cfg, attr), "w") as f:
            f.write(str(value))

    def close(self):
        if os.path.exists(os.path.join(self.cfg, "power")):
            self.set("power", 0)
            os.rmdir(self.cfg)


class ScsiDebug(Disk):
    """scsi_debug's one disk, made with module parameters `params`
    (sector_size, physblk_exp, opts, every_nth, delay, ...), its module
    removed again at close()."""

    def __init__(self, size_mb=64, **params):
        modprobe("scsi_debug", "dev_size_mb=%d" % size_mb,
                 *("%s=%s" % kv for kv in params.items()))
        try:
            for _ in range(100):
                names = [n for n in os.listdir("/sys/block")
                         if os.path.exists("/sys/block/%s/device/model" % n) and
                         open("/sys/block/%s/device/model" % n).read().strip() == "scsi_debug"]
                if names:
                    break
                time.sleep(0.05)
            assert len(names) == 1, names
            super().__init__(names[0])
        except BaseException:
            self.close()
            raise

    def close(self):
        subprocess.run(["modprobe", "-r", "scsi_debug"], check=False, capture_output=True)


class Zram:
    """A zram device of its own (/sys/class/zram-control): bio-based, its
    I/O never becomes a request."""

    def __init__(self, size_mb=256):
        with open("/sys/class/zram-control/hot_add") as f:
            self.id = int(f.read())
        self.name = "zram%d" % self.id
        self.dev = "/dev/" + self.name
        try:
            with open("/sys/block/%s/disksize" % self.name, "w") as f:
                f.write("%dM" % size_mb)
            st = os.stat(self.dev)
            self.major, self.minor = os.major(st.st_rdev), os.minor(st.st_rdev)
        except BaseException:
            self.close()
            raise

    def close(self):
        with open("/sys/class/zram-control/hot_remove", "w") as f:
            f.write(str(self.id))

    def diskstats(self):
        return diskstats(self.name)



@contextlib.contextmanager
def mounted_ext4(dev, where):
    """ext4 made on `dev` and mounted at where/mnt until the end."""
    mnt = where / "mnt"
    mnt.mkdir()
    subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0",
                    dev], check=True, capture_output=True)
    subprocess.run(["mount", "-o", "noatime", dev, str(mnt)], check=True)
    try:
        yield mnt
    finally:
        umount(mnt)


def umount(mnt):
    """Unmounts `mnt`, waiting while it is busy: a process's io_uring
    with registered files lets them go from a kernel worker after the
    process has ended (io_uring's ring exit work), and until then the
    mount is busy.  Lazily after 10 s, so that its device is let go in
    the end."""
    for _ in range(100):
        if subprocess.run(["umount", str(mnt)], capture_output=True).returncode == 0:
            return
        time.sleep(0.1)
    subprocess.run(["umount", "-l", str(mnt)], check=False)


class PlainUser:
    """A real unprivileged user, OWN + "u", whose home is a folder of its
    own on tmpfs (owned by it, not sticky: one another user can write to).
    run() runs a command as it."""

    def __init__(self):
        self.name = OWN + "u"
        self.home = os.path.join(TMPFS, OWN + "home")
        subprocess.run(["useradd", "-M", "-N", "-d", self.home, "-s", "/bin/sh", self.name],
                       check=True, capture_output=True)
        try:
            pw = pwd.getpwnam(self.name)
            self.uid, self.gid = pw.pw_uid, pw.pw_gid
            os.mkdir(self.home, 0o755)
            os.chown(self.home, self.uid, self.gid)
        except BaseException:
            self.close()
            raise

    def run(self, *cmd):
        return subprocess.run(["setpriv", "--reuid=%d" % self.uid, "--regid=%d" % self.gid,
                               "--clear-groups", "--"] + list(cmd),
                              check=True, capture_output=True)

    def close(self):
        subprocess.run(["userdel", self.name], capture_output=True)
        shutil.rmtree(self.home, ignore_errors=True)


def flip_byte(dev, at):
    """One bit of the byte at `at` of the device flipped, on the device."""
    fd = os.open(dev, os.O_RDWR)
    try:
        b = os.pread(fd, 1, at)
        os.pwrite(fd, bytes([b[0] ^ 0x10]), at)
        os.fsync(fd)
    finally:
        os.close(fd)


def diskstats(name):
    """Fields of /proc/diskstats for a device, by iostat's names."""
    with open("/proc/diskstats") as f:
        for line in f:
            p = line.split()
            if p[2] == name:
                v = [int(x) for x in p[3:]]
                v += [0] * (17 - len(v))
                return {"r_ios": v[0], "r_merges": v[1], "r_sectors": v[2],
                        "w_ios": v[4], "w_merges": v[5], "w_sectors": v[6],
                        "in_flight": v[8], "io_ticks": v[9],
                        "weighted_ms": v[10], "d_ios": v[11],
                        "d_merges": v[12], "d_sectors": v[13],
                        "f_ios": v[15]}
    raise KeyError(name)


def assert_counts_equal(name, before, after, got):
    """What iolens counted on device `name`, `got` = {op: (requests, bytes)}
    for any of "read", "write", "discard", is exactly the /proc/diskstats
    delta from `before` to `after`: the requests completed, and the sectors
    times 512."""
    for op, counts in got.items():
        p = op[0]
        want = (after[p + "_ios"] - before[p + "_ios"],
                (after[p + "_sectors"] - before[p + "_sectors"]) * 512)
        assert tuple(counts) == want, (name, op, counts, want, before, after)


def load_json(args):
    """iolens load's fio-shaped JSON for `args`."""
    p = run(["load"] + args + ["--output-format=json"])
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def fio_json(args):
    """fio 3.33's JSON for the same `args`, run in a folder of its own:
    fio leaves a verify job's state file where it runs."""
    with tempfile.TemporaryDirectory(prefix=OWN, dir=TMPFS) as where:
        p = subprocess.run(["fio"] + args + ["--output-format=json"],
                           capture_output=True, text=True, cwd=where)
    assert p.returncode == 0, p.stderr
    return fio_doc(p.stdout)


def fio_doc(out):
    """The JSON document of fio's stdout: fio prints its notes ("note:
    both iodepth >= 1 and synchronous I/O engine...") before it."""
    assert "{" in out, out
    return json.loads(out[out.index("{"):])


def uncached_file(path, size):
    """`path` with `size` written bytes (not a hole: that reads back as
    zeros without a device read), none of them in the page cache."""
    with open(path, "wb") as f:
        f.write(os.urandom(size))
        f.flush()
        os.fsync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def digest(path):
    """sha256 of a file or device: that nothing was written to it."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def line_of(proc, stream=None, timeout=60):
    """The next line `proc` writes to `stream` (its stderr by default),
    waiting at most `timeout` seconds.  A command that hangs fails the test
    with where each of its threads is in the kernel, not the whole run."""
    stream = stream or proc.stderr
    got = []
    # A thread, not select(): the stream's buffer may hold the line already.
    t = threading.Thread(target=lambda: got.append(stream.readline()), daemon=True)
    t.start()
    t.join(timeout)
    if got:
        return got[0]
    where = []
    for task in sorted(glob.glob("/proc/%d/task/*" % proc.pid)):
        try:
            with open(task + "/stack") as f:
                where.append("%s:\n%s" % (task, f.read()))
        except OSError as e:
            where.append("%s: %s" % (task, e))
    proc.kill()
    raise AssertionError("%s wrote no line in %d s; in the kernel:\n%s" % (
        " ".join(proc.args), timeout, "\n".join(where)))


def need(binary):
    """The path of a peer the test compares with, installed by
    tools/install-deps.sh test."""
    path = shutil.which(binary)
    if not path:
        pytest.skip("%s not installed: tools/install-deps.sh test" % binary)
    return path


def wait_idle(lo, quiet=0.3, timeout=5.0):
    """Wait until the device's counters stop moving (udev, partition scan)."""
    end = time.time() + timeout
    last = lo.diskstats()
    stable_since = time.time()
    while time.time() < end:
        time.sleep(0.05)
        cur = lo.diskstats()
        if cur != last:
            last, stable_since = cur, time.time()
        elif time.time() - stable_since >= quiet and cur["in_flight"] == 0:
            return
    raise AssertionError("device %s never went idle" % lo.name)


class TopJson:
    """`iolens top -j ARGS` in the background, once its first frame is out."""

    def __init__(self, args):
        self.proc = subprocess.Popen([IOLENS, "top", "-j"] + args, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        line_of(self.proc, self.proc.stdout)

    def devices(self):
        """The device table of the next frame."""
        return json.loads(line_of(self.proc, self.proc.stdout))["devices"]

    def until_shown(self, names, frames=30):
        """The device table of the first frame that lists all of `names`."""
        for _ in range(frames):
            devs = self.devices()
            if set(names) <= {d["disk_device"] for d in devs}:
                return devs
        raise AssertionError("%s never shown: %s" % (names, devs))

    def kill(self):
        self.proc.kill()
        self.proc.wait()


class DirectIO:
    """O_DIRECT reads and writes at known offsets, done by this process."""

    def __init__(self, path, max_size=1 << 20):
        self.fd = os.open(path, os.O_RDWR | os.O_DIRECT)
        self.buf = mmap.mmap(-1, max_size)  # page aligned, as O_DIRECT needs
        self.buf.write(os.urandom(max_size))
        self.done = []  # (op, offset, size)

    def write(self, offset, size):
        n = os.pwrite(self.fd, memoryview(self.buf)[:size], offset)
        assert n == size
        self.done.append(("write", offset, size))

    def read(self, offset, size):
        n = os.preadv(self.fd, [memoryview(self.buf)[:size]], offset)
        assert n == size
        self.done.append(("read", offset, size))

    def close(self):
        os.close(self.fd)
        self.buf.close()


def wait_blocked_in_read(pid, tid=None, timeout=10.0):
    """Until the thread `tid` of `pid` (its main thread by default) sleeps
    in read(): done with the syscalls before it, their counts in
    /proc/<pid>/io.  A peer that has read what the thread wrote may run
    before the write returns (a preemptible kernel, one CPU)."""
    tid = tid or pid
    end = time.time() + timeout
    while time.time() < end:
        try:
            with open("/proc/%d/task/%d/syscall" % (pid, tid)) as f:
                nr = f.read().split()[0]
            with open("/proc/%d/task/%d/stat" % (pid, tid)) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            nr, state = None, None
        if nr == "0" and state == "S":	# __NR_read on x86_64
            return
        time.sleep(0.01)
    raise AssertionError("thread %d never blocked in read()" % tid)


def thread_id():
    return threading.get_native_id()


def my_comm():
    with open("/proc/self/comm") as f:
        return f.read().strip()


def tracefs_instances():
    """tracefs's folder of instances, tracefs mounted if it was not."""
    if not os.path.isdir(os.path.join(TRACEFS, "events")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS],
                       check=False, capture_output=True)
    if not os.path.isdir(os.path.join(TRACEFS, "instances")):
        pytest.skip("tracefs is not available at %s" % TRACEFS)
    return os.path.join(TRACEFS, "instances")


class TraceInstance:
    """A private tracefs instance recording block events of one device: an
    independent view of every request the block layer issued."""

    def __init__(self, lo, events=("block_rq_issue",), buffer_kb=8192, clock="mono"):
        self.path = os.path.join(tracefs_instances(), OWN + "trace")
        if os.path.isdir(self.path):
            os.rmdir(self.path)
        os.mkdir(self.path)
        self.events = events
        try:
            self._write("buffer_size_kb", str(buffer_kb))
            # mono is the clock of bpf_ktime_get_ns(): durations compare
            # directly, in whole microseconds; x86-tsc stamps in cycles
            # (see tsc_ns_per_cycle()).
            self._write("trace_clock", clock)
            for ev in events:
                d = os.path.join("events/block", ev)
                # dev is the kernel dev_t: MINORBITS is 20
                self._write(os.path.join(d, "filter"),
                            "dev == %d" % (lo.major << 20 | lo.minor))
                self._write(os.path.join(d, "enable"), "1")
        except BaseException:
            self.close()
            raise

    def _write(self, rel, value):
        with open(os.path.join(self.path, rel), "w") as f:
            f.write(value)

    def read(self):
        """[(event, rwbs, sector, nr_sector)] recorded so far."""
        return [e[1:] for e in self.read_timed()]

    def read_timed(self):
        """[(stamp, event, rwbs, sector, nr_sector)] recorded so far: stamp
        in seconds, or in cycles with clock x86-tsc."""
        with open(os.path.join(self.path, "trace")) as f:
            text = f.read()
        out = []
        for line in text.splitlines():
            if line.startswith("#"):
                continue
            # block_rq_*: "7,0 R 4096 () 8 + 8 ..."; block_bio_*: "7,0 R 8 + 8 [comm]".
            m = re.search(r" (\d+(?:\.\d+)?): (block_\w+): (\d+),(\d+) (\S+) "
                          r"(?:\d+ )?(?:\(.*?\) )?(\d+) \+ (\d+)", line)
            if m:
                out.append((float(m.group(1)), m.group(2), m.group(5),
                            int(m.group(6)), int(m.group(7))))
        return out

    def issuers(self, sector):
        """(pid, comm) of each task that issued a request at `sector`:
        the task tracefs's line of block_rq_issue runs in."""
        with open(os.path.join(self.path, "trace")) as f:
            text = f.read()
        return [(int(m.group(2)), m.group(1)) for m in re.finditer(
            r"^\s*(.*)-(\d+)\s+\[\d+\].*: block_rq_issue: \d+,\d+ \S+ (?:\d+ )?(?:\(.*?\) )?"
            r"%d \+" % sector, text, re.M)]

    def marker(self):
        """A mark in the trace, and CLOCK_MONOTONIC (ns) around it."""
        t0 = time.monotonic_ns()
        self._write("trace_marker", "iolens-mark")
        return t0, time.monotonic_ns()

    def marker_stamps(self):
        with open(os.path.join(self.path, "trace")) as f:
            return [int(float(m.group(1))) for m in
                    re.finditer(r" (\d+(?:\.\d+)?): tracing_mark_write: iolens-mark", f.read())]

    def ns_per_cycle(self, first, last):
        """With clock x86-tsc: ns per stamp unit, from two marker() calls
        far apart (microseconds of doubt over seconds)."""
        a, b = self.marker_stamps()[:2]
        return ((last[0] + last[1]) / 2 - (first[0] + first[1]) / 2) / (b - a)

    def overruns(self):
        total = 0
        for stats in glob.glob(os.path.join(self.path, "per_cpu/cpu*/stats")):
            with open(stats) as f:
                for line in f:
                    if line.startswith("overrun:"):
                        total += int(line.split()[1])
        return total

    def close(self):
        # A test may have unmounted tracefs since (a booted machine's
        # state): the instance lives on in the kernel all the same.
        tracefs_instances()
        if os.path.isdir(self.path):
            try:
                for ev in self.events:
                    self._write(os.path.join("events/block", ev, "enable"), "0")
            finally:
                os.rmdir(self.path)



class Tracer:
    """An iolens subcommand running in the background until stop()."""

    def __init__(self, args, attach=None):
        self.args = [IOLENS] + args
        env = dict(os.environ)
        if attach:
            env["IOLENS_ATTACH"] = attach
        # A file, not a pipe: a pipe nobody reads until stop() would block
        # the tracer and overflow its ring buffer.
        self.out = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(self.args, stdout=self.out,
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.attach = None
        line = line_of(self.proc)
        m = re.match(r"(Tracing|Recording) block requests \((\w+)\)", line)
        if not m:
            err = self.proc.communicate(timeout=10)[1]
            raise AssertionError("%s did not start: %s%s" % (
                " ".join(self.args), line, err))
        self.attach = m.group(2)

    def stop(self, sig=signal.SIGINT):
        self.proc.send_signal(sig)
        _, err = self.proc.communicate(timeout=30)
        self.out.seek(0)
        self.stdout, self.stderr = self.out.read(), err
        self.out.close()
        assert self.proc.returncode == 0, (self.proc.returncode, err)
        return self.stdout

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()



class LiveOutput:
    """A file a child writes while the test reads it.  The child's end
    appends (O_APPEND) and the test reads through an open file of its own:
    sharing one, the test's seek(0) moved the offset the child writes at,
    and a write that came between the seek and the read went over the
    child's first lines."""

    def __init__(self):
        fd, path = tempfile.mkstemp(prefix=OWN, dir=TMPFS)
        try:
            self.w = open(path, "a")
            self.r = open(path)
        finally:
            os.close(fd)
            os.unlink(path)

    def read(self):
        self.r.seek(0)
        return self.r.read()

    def close(self):
        self.w.close()
        self.r.close()


class Background:
    """An iolens command writing its output to a file until stop(), for
    those that say nothing when attached (stat, top -b): the caller waits
    for what it needs."""

    def __init__(self, args, iolens=IOLENS):
        self.out = LiveOutput()
        self.proc = subprocess.Popen([iolens] + args, stdout=self.out.w,
                                     stderr=subprocess.PIPE, text=True)

    def output(self):
        return self.out.read()

    def wait_for(self, text, timeout=60):
        """Until its output has `text` (its first report, frame): under
        TCG a command takes seconds to attach, and I/O before that is not
        its to see."""
        end = time.time() + timeout
        while text not in self.output():
            assert self.proc.poll() is None, self.proc.stderr.read()
            assert time.time() < end, "no %r in %d s: %s" % (text, timeout, self.output())
            time.sleep(0.05)

    def stop(self):
        """Its output, after a Ctrl-C it must end on with 0."""
        self.proc.send_signal(signal.SIGINT)
        _, err = self.proc.communicate(timeout=30)
        assert self.proc.returncode == 0, err
        text = self.output()
        self.out.close()
        return text

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def json_lines(text):
    recs, summary = [], None
    for line in text.splitlines():
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise AssertionError("bad JSON line %r: %s" % (line, e))
        if "summary" in obj:
            summary = obj["summary"]
        else:
            recs.append(obj)
    return recs, summary


def rmdir_cgroup(path, timeout=10):
    """Removes cgroup `path` once its last process is gone (a killed one
    leaves it a moment later)."""
    end = time.time() + timeout
    while True:
        try:
            os.rmdir(path)
            return
        except OSError:
            if time.time() > end:
                raise
            time.sleep(0.1)


def made_by(make, close):
    """The body of a factory fixture: the test calls make(...) as often as
    it wants, and close() is called on each thing made at the end, also on
    failure.  Use: `yield from made_by(make, close)`."""
    made = []

    def start(*args, **kw):
        x = make(*args, **kw)
        made.append(x)
        return x
    try:
        yield start
    finally:
        for x in made:
            close(x)


def run(args, **kw):
    return subprocess.run([IOLENS] + args, capture_output=True, text=True, **kw)


# lat: the exact percentiles its histograms are checked against.

PCTS = {"p50": 50, "p90": 90, "p99": 99, "p99.9": 99.9, "max": 100}


def frames_of(x):
    """The function names of a stack (lat --by stack's histogram, a snoop
    or report JSON line), innermost first."""
    return [f.split("+")[0] for f in x["stack"] or []]


# Functions that tell who submitted a request on ext4 (data=ordered).
EXT4_SUBMITTERS = {"fsync": "ext4_sync_file",
                   "journal": "jbd2_journal_commit_transaction",
                   "direct": "iomap_dio_rw"}


def fsync_then_direct_reads(loop, ext4):
    """On ext4 on `loop`: a 1 MiB file written and fsync()ed, then 16
    direct 4 KiB reads of it; the device's diskstats before, between and
    after."""
    path = os.path.join(ext4, "f")
    d0 = loop.diskstats()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"x" * (1 << 20))
    os.fsync(fd)
    os.close(fd)
    wait_idle(loop)
    d1 = loop.diskstats()
    io = DirectIO(path)
    for i in range(16):
        io.read(i * 65536, 4096)
    io.close()
    wait_idle(loop)
    return d0, d1, loop.diskstats()


def exact_pct(values, p):
    """Nearest rank, as iolens defines its percentiles."""
    v = sorted(values)
    return v[max(1, math.ceil(p / 100 * len(v))) - 1]


def assert_pct_near(values, p, got, what):
    """A histogram's percentile p is within 1% (its bucket) of the exact
    values one rank either side of the nearest rank.  Two tracers on one
    tracepoint read the clock one after the other, so an interrupt, or the
    host taking the vCPU away (steal), between them lengthens one request in
    one of them by tens of us: in the sparse tail that moves it a rank (a CI
    saw zram's p99 of 192 bios at 978944 ns against 935161 exact)."""
    v = sorted(values)
    r = max(1, math.ceil(p / 100 * len(v))) - 1
    lo, hi = v[max(0, r - 1)], v[min(len(v) - 1, r + 1)]
    assert 0.99 * lo <= got <= 1.01 * hi, (what, got, v[r], lo, hi)


def lat_reports(t):
    """The reports of a `lat -j` Tracer, which this stops."""
    return [json.loads(l) for l in t.stop().splitlines()]


# stat: `iolens stat -j` in the background, and the sums of its reports.

OPS = {"read": "r", "write": "w", "discard": "d", "flush": "f"}


def whole_lines(text):
    """The lines of `text` a writer has finished: one longer than stdio's
    buffer reaches the file in parts."""
    return text[:text.rfind("\n") + 1].splitlines()


class Stat(Background):
    """`iolens stat -y -j ... INTERVAL` in the background, started once its
    first report shows it is attached."""

    def __init__(self, iolens, args, interval="0.5"):
        super().__init__(["stat", "-y", "-j"] + args + [interval], iolens)
        end = time.time() + 15
        while not self.reports() and time.time() < end:
            assert self.proc.poll() is None, self.proc.stderr.read()
            time.sleep(0.05)
        assert self.reports(), "no first report"

    def reports(self):
        """The reports written so far."""
        return [json.loads(l) for l in whole_lines(self.output())]

    def stop_when_idle(self, lo):
        """Once `lo` is idle: its diskstats then, and every report up to
        the first whose interval began after (settled())."""
        wait_idle(lo)
        ds = lo.diskstats()
        self.settled()
        return ds, self.stop()

    def settled(self, timeout=15):
        """Waits for two more reports: the second's interval began after
        this call, with the disks idle, and so found every completion
        missed (a disk counted in flight that the kernel says is idle)."""
        n, end = len(self.reports()) + 2, time.time() + timeout
        while len(self.reports()) < n:
            assert time.time() < end, "stat wrote no report in %d s" % timeout
            assert self.proc.poll() is None, self.proc.stderr.read()
            time.sleep(0.05)

    def stop(self):
        """Every report, after a Ctrl-C it must end on with 0."""
        return [json.loads(l) for l in whole_lines(super().stop())]


def totals(reports, name):
    """Per op sums over all reports of one device, plus missed completions,
    busy and weighted time (s) as aqu-sz and busy% times the interval."""
    t = {op: {"ios": 0, "bytes": 0, "merges": 0} for op in OPS}
    missed = busy = weighted = 0.0
    for r in reports:
        for d in r["devices"]:
            if d["disk_device"] != name:
                continue
            missed += d["completions_missed"]
            busy += (d["busy"] or 0) / 100 * r["seconds"]
            weighted += d["aqu-sz"] * r["seconds"]
            for op in OPS:
                for k in t[op]:
                    t[op][k] += d["ops"][op][k]
    return t, int(missed), busy, weighted


def stat_counts(t, ops=("read", "write")):
    """{op: (requests, bytes)} of totals()'s sums, as assert_counts_equal()
    takes them."""
    return {op: (t[op]["ios"], t[op]["bytes"]) for op in ops}


# snoop and record: a workload of one request a syscall, and the check
# of each record against what was done, diskstats and tracefs.

KIB = 1024

# (op, offset, size): distinct sizes and offsets, none adjacent to the
# previous one, so every syscall is exactly one request.
WORKLOAD = [
    ("write", 0, 4 * KIB),
    ("write", 1024 * KIB, 8 * KIB),
    ("read", 0, 4 * KIB),
    ("write", 2048 * KIB + 512, 512),
    ("read", 4096 * KIB, 64 * KIB),
    ("write", 8192 * KIB, 128 * KIB),
    ("read", 1024 * KIB, 8 * KIB),
    ("read", 12288 * KIB + 1536, 2560),
]


def check_exact(recs, done, loop, before, after, issued):
    """One record per request with what was done, as the kernel counted
    and as tracefs saw each request issued."""
    got = [(r["op"], r["sector"] * 512, r["bytes"]) for r in recs]
    assert got == done, "records %s, done %s" % (got, done)
    me, tid, comm = os.getpid(), thread_id(), my_comm()
    for r in recs:
        assert (r["pid"], r["tid"], r["comm"]) == (me, tid, comm)
        assert r["ctx"] in SUBMIT_CTX
        assert (r["dev"], r["major"], r["minor"]) == (loop.name, loop.major, loop.minor)
        assert r["status"] == "ok"
        # Sequential synchronous I/O: alone on the device.
        assert r["qd"] == 1
        assert 0 <= r["queue_ns"] and 0 < r["device_ns"]
        assert r["total_ns"] == r["queue_ns"] + r["device_ns"]
        assert r["ts_start"] <= r["ts_issue"] < r["ts_complete"]
        assert "sync" in r["flags"].split(",")

    reads = [r for r in recs if r["op"] == "read"]
    writes = [r for r in recs if r["op"] == "write"]
    # Every record's bytes are whole sectors (the sizes done, checked
    # above): their sum is the sector delta times 512 exactly.
    assert_counts_equal(loop.name, before, after, {
        "read": (len(reads), sum(r["bytes"] for r in reads)),
        "write": (len(writes), sum(r["bytes"] for r in writes))})
    assert after["r_merges"] == before["r_merges"] and after["w_merges"] == before["w_merges"]

    assert [(r["rwbs"], r["sector"], r["bytes"] // 512) for r in recs] == issued


def snoop_exact(tracer, disk, tracefs, attach=None):
    """snoop -j of `disk` over the WORKLOAD, checked by check_exact(); its
    summary, none lost."""
    t = tracer(["snoop", "-j", "-d", disk.name], attach)
    before = disk.diskstats()
    done = do_workload(disk)
    wait_idle(disk)
    after = disk.diskstats()
    recs, summary = json_lines(t.stop())
    check_exact(recs, done, disk, before, after, issued_events(tracefs))
    assert summary["requests"] == len(done)
    assert summary["lost"] == summary["untracked"] == summary["unseen"] == 0
    return t, summary


def issued_events(tracefs):
    """[(rwbs, sector, nr_sector)] of the requests a TraceInstance saw issued."""
    assert tracefs.overruns() == 0
    return [(rwbs, sector, nr) for ev, rwbs, sector, nr in tracefs.read()
            if ev == "block_rq_issue"]


def do_workload(lo, workload=WORKLOAD):
    """`workload` done on `lo` by this thread: what DirectIO did."""
    io = DirectIO(lo.dev)
    try:
        for op, off, size in workload:
            getattr(io, op)(off, size)
    finally:
        io.close()
    return io.done


# load: its engines, and a run that must be refused.

# The engines that do direct I/O on a device, as fio's of the same names;
# mmap (page faults) and null (no I/O) are tested on their own.
ENGINES = ["psync", "io_uring", "libaio", "sync", "vsync", "pvsync", "pvsync2",
           "posixaio"]
# One I/O at a time: the call is the I/O.  (fio 3.33's vsync at an iodepth
# above 1 gathers neighbours into one readv and reports fewer bytes than
# its I/Os carried; at 1 it is plain.)
SYNC_ENGINES = ["psync", "sync", "vsync", "pvsync", "pvsync2"]


def kill_in(where):
    """Kills every process whose working folder is `where`: fio's job
    processes start sessions of their own and would outlive a test that
    timed out."""
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and os.readlink("/proc/%s/cwd" % pid) == str(where):
                os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass


def run_in(cmd, where, timeout=120):
    """`cmd` run to its end in the folder `where`; its stdout, stderr and
    code.  On a timeout, what it started there is killed too."""
    try:
        return subprocess.run(cmd, cwd=where, capture_output=True, text=True,
                              timeout=timeout)
    finally:
        kill_in(where)


def load(args, **kw):
    """`iolens load ARGS`, run to its end."""
    return run(["load"] + args, **kw)


def refused(p, what):
    """`p` (a finished run) was refused as a usage error, with one line
    on stderr that says `what`."""
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert what in lines[0], lines[0]


# serve: `iolens serve` on a free port (the `serve` fixture in conftest.py
# starts it), and the samples of a scrape.

def free_port():
    """A loopback TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prometheus:
    """A real Prometheus scraping 127.0.0.1:`target_port` every second,
    its data in `tmp`; `rules`: a rule file it loads too."""

    def __init__(self, target_port, tmp, rules=None):
        self.port = free_port()
        cfg = os.path.join(tmp, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                    "scrape_configs:\n  - job_name: iolens\n"
                    "    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % target_port)
            if rules:
                f.write("rule_files:\n  - %s\n" % json.dumps(rules))
        self.log = open(os.path.join(tmp, "prometheus.log"), "w+")
        self.proc = subprocess.Popen(
            [need("prometheus"), "--config.file=" + cfg,
             "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"),
             "--web.listen-address=127.0.0.1:%d" % self.port],
            stdout=self.log, stderr=self.log)
        end = time.time() + 60
        while time.time() < end:
            assert self.proc.poll() is None, self.logs()
            try:
                # Targets come from discovery, which updates every 5 s.
                if [t for t in self.targets() if t[0] == "up"]:
                    return
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.2)
        raise AssertionError("prometheus not ready: " + self.logs())

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def logs(self):
        self.log.seek(0)
        return self.log.read()[-3000:]

    def query(self, q, at):
        return self.api("/api/v1/query?" + urllib.parse.urlencode(
            {"query": q, "time": "%.3f" % at}))["result"]

    def scalar(self, q, at):
        res = self.query(q, at)
        assert len(res) == 1, (q, res, self.query(q, time.time()), self.targets(), self.logs())
        return float(res[0]["value"][1])

    def api(self, path):
        """The data of an API answer."""
        with urllib.request.urlopen(self.url(path), timeout=10) as r:
            d = json.load(r)
        assert d["status"] == "success", d
        return d["data"]

    def targets(self):
        return [(t["health"], t["lastError"], t["lastScrape"])
                for t in self.api("/api/v1/targets")["activeTargets"]]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class Serve:
    """`iolens serve` on a free loopback port until stop()."""

    def __init__(self, args=(), wrap=list):
        """wrap(argv): the command line that runs it."""
        self.port = free_port()
        self.err = LiveOutput()
        self.proc = subprocess.Popen(
            wrap([IOLENS, "serve", "--listen", "127.0.0.1:%d" % self.port] + list(args)),
            stdout=subprocess.DEVNULL, stderr=self.err.w, text=True)
        end = time.time() + 20
        while time.time() < end:
            if self.proc.poll() is not None:
                raise AssertionError("serve exited %d: %s" % (self.proc.returncode, self.stderr()))
            if "serving http://" in self.stderr():
                return
            time.sleep(0.05)
        self.kill()
        raise AssertionError("serve did not start: %s" % self.stderr())

    def stderr(self):
        return self.err.read()

    def get(self, path="/metrics", accept=None, timeout=10, source="127.0.0.1"):
        """(status, content type, body); `source`: the loopback address
        to ask from (the server caps connections per address)."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout,
                                       source_address=(source, 0))
        try:
            c.request("GET", path, headers={"Accept": accept} if accept else {})
            r = c.getresponse()
            return r.status, r.getheader("Content-Type"), r.read().decode()
        finally:
            c.close()

    def metrics(self):
        status, _, body = self.get()
        assert status == 200
        return body

    def rss_kib(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        self.proc.wait(timeout=15)
        return self.proc.returncode

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.err.close()


def samples(body, name):
    """{frozenset(labels): value} of the samples of `name`."""
    out = {}
    for line in body.splitlines():
        m = re.match(r"%s\{(.*)\} (\S+)$" % re.escape(name), line)
        if m:
            labels = frozenset(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
            out[labels] = float(m.group(2))
    return out


def value(body, name, **labels):
    """The sum of the samples of `name` that have `labels` (among others)."""
    want = set(labels.items())
    hits = [v for k, v in samples(body, name).items() if want <= k]
    assert hits, (name, labels)
    return sum(hits)


# top: on a terminal of its own (tmux), and a process's row on it.

class Tmux:
    """A shell in a detached tmux session of a known size, in a UTF-8
    locale, with `env` added to its environment."""

    def __init__(self, width=160, height=50, env=None):
        self.name = "iolens-test-%d" % os.getpid()
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)
        env = dict(TERM="xterm-256color", LANG="C.UTF-8", **(env or {}))
        # -e: a tmux server already running (another session) would give
        # the session its own environment, not this process's.
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", str(width),
                        "-y", str(height)] + ["-e%s=%s" % kv for kv in env.items()] +
                       ["bash --norc --noprofile"], check=True,
                       env=dict(os.environ, **env))
        self.keys("PS1='PROMPT$ '", "Enter", "clear", "Enter")

    def keys(self, *keys):
        subprocess.run(["tmux", "send-keys", "-t", self.name] + list(keys), check=True)

    def screen(self):
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name],
                              check=True, capture_output=True, text=True).stdout

    def var(self, name):
        return subprocess.run(["tmux", "display-message", "-p", "-t", self.name,
                               "#{%s}" % name], check=True, capture_output=True,
                              text=True).stdout.strip()

    def wait_for(self, pred, timeout=10):
        end = time.time() + timeout
        while time.time() < end:
            s = self.screen()
            if pred(s):
                return s
            time.sleep(0.1)
        raise AssertionError("screen never matched:\n" + self.screen())

    def resize(self, width, height):
        subprocess.run(["tmux", "resize-window", "-t", self.name, "-x", str(width),
                        "-y", str(height)], check=True)

    def close(self):
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def row_of(screen, pid):
    """The fields of `pid`'s row of a top screen, None if it has none."""
    for line in screen.splitlines():
        f = line.split()
        if f and f[0] == str(pid):
            return f
    return None


# check: `iolens check -j` around a load, and its findings.

class Check:
    """`iolens check -j ARGS` in the background, started once attached."""

    def __init__(self, args):
        self.proc = subprocess.Popen([IOLENS, "check", "-j"] + args,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        line = line_of(self.proc)
        assert line.startswith("Checking writes"), line + self.proc.stderr.read()

    def stop(self):
        """Its report, and its exit code."""
        self.proc.send_signal(signal.SIGINT)
        out, err = self.proc.communicate(timeout=60)
        assert self.proc.returncode in (0, 1), err
        return json.loads(out), self.proc.returncode

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def finding(report, name):
    return next(f for f in report["findings"] if f["check"] == name)


def offender(f, pid):
    """The offender rows of process `pid` summed: (count, bytes, files)."""
    rows = [o for o in f["offenders"] if o["pid"] == pid]
    return (sum(o["count"] for o in rows), sum(o["bytes"] for o in rows),
            {o["file"] for o in rows})


def load_job(args):
    """iolens load as a separate process: (its pid, its fio JSON)."""
    p = subprocess.Popen([IOLENS, "load", "--name=w", "--ioengine=psync",
                          "--output-format=json"] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    return p.pid, json.loads(out)["jobs"][0]


def checked(check_args, load_args, lo=None):
    """check running around one load: (report, exit code, load pid, job)."""
    ck = Check(check_args)
    try:
        pid, job = load_job(load_args)
        if lo:
            wait_idle(lo)
        rep, rc = ck.stop()
    finally:
        ck.kill()
    return rep, rc, pid, job


def html_report(trace, page, *args):
    """report -f html of `trace` into `page`: the page, and its numbers."""
    p = run(["report", "-f", "html", "-o", page] + list(args) + [trace])
    assert p.returncode == 0, p.stderr
    with open(page) as f:
        html = f.read()
    return html, page_data(html)


def page_data(html):
    """The numbers an HTML report was drawn from (its JSON, id iolens-data)."""
    m = re.search(r'<script type="application/json" id="iolens-data">(.*?)</script>', html, re.S)
    assert m, "no data in the page"
    return json.loads(m.group(1))


def refused_direct_writes(dev, n):
    """n 512-byte O_DIRECT writes by this process to `dev`, a disk of
    4096-byte logical blocks, each refused by the kernel (EINVAL)."""
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, 4096)
    try:
        for i in range(n):
            with pytest.raises(OSError) as e:
                os.pwrite(fd, memoryview(buf)[:512], i * 4096)
            assert e.value.errno == errno.EINVAL
    finally:
        os.close(fd)
        buf.close()


def check_refused(disk, n):
    """check -j -d DISK around refused_direct_writes(disk.dev, n): the
    finding counts the n, this process's on that device file, and the
    disk's line names its 4096-byte logical block.  Its report."""
    name, dev = disk.name, disk.dev
    ck = Check(["-d", name])
    try:
        refused_direct_writes(dev, n)
        rep, rc = ck.stop()
    finally:
        ck.kill()
    assert rc == 1
    f = finding(rep, "refused_direct_writes")
    assert f["verdict"] == "fail" and f["count"] == n
    assert offender(f, os.getpid()) == (n, n * 512, {dev})
    (line,) = [d for d in rep["disks"] if d["disk"] == name]
    assert (line["logical_block"], line["refused_direct"]) == (4096, n)
    return rep


def png_pixels_vary(path):
    """Whether a PNG holds more than one colour: its IDAT inflated."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    return len(set(raw)) > 16


def chromium_screenshot(page, png, height):
    """Headless Chromium's screenshot of the file `page` into `png`, 1024
    pixels wide: asserts it was taken, that the page logged no console
    message (it runs no script and fetches nothing), and that it is not
    blank."""
    chromium = shutil.which("chromium")
    assert chromium, "chromium not installed: tools/install-deps.sh test"
    p = subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
                        "--window-size=1024,%d" % height, "--screenshot=" + png,
                        "file://" + page], capture_output=True, text=True, timeout=120)
    assert os.path.exists(png), p.stderr[-2000:]
    assert not re.search(r"CONSOLE\(", p.stderr), p.stderr
    assert png_pixels_vary(png)
    # Kept beside the build, for a person to look at.
    keep = os.path.join(os.path.dirname(IOLENS), "artefacts")
    os.makedirs(keep, exist_ok=True)
    shutil.copy(png, os.path.join(keep, os.path.basename(png)))
