# SPDX-License-Identifier: GPL-2.0
"""top's rows add up to what the device did: a shell runs readers and
writers that live for seconds and for less than a frame, direct and
buffered, and its children are reaped (by it, and fio's job processes by
fio) while top runs.  The kernel adds a reaped child's counters to its
parent's /proc/PID/io; top must not show them again as the parent's I/O,
nor lose a process that began and ended between two frames."""
import collections
import json
import mmap
import os
import shutil
import signal
import subprocess
import threading
import time

from helpers import IOLENS, Loop

MiB = 1 << 20

# Run as the plain user, on the loop device it was given ($1), with its
# buffered I/O at $2 MiB.  Long:
# fio's paced random reads and writes for 2 s, in a job process of its
# own that fio reaps.  Short: dd's of 2 MiB and 1 MiB, each over in a few
# ms.  Then, after "b" on stdout, buffered reads and writes of regions no
# one read before (the writes fsynced by dd itself); then "d", and the
# shell waits for a line on stdin so that the test reads its /proc/PID/io,
# where the kernel has summed all of its children.
WORKLOAD = r"""
set -e
L=$1
fio --name=long --filename=$L --rw=randrw --rwmixread=60 --bs=64k --direct=1 \
    --ioengine=psync --rate=12m,8m --offset=0 --size=32m --runtime=2 --time_based \
    --output=/dev/null &
for i in $(seq 1 16); do
    dd if=$L of=/dev/null bs=256k count=8 skip=$((128 + 8 * i)) iflag=direct 2>/dev/null
    dd if=/dev/zero of=$L bs=256k count=4 seek=$((320 + 4 * i)) oflag=direct 2>/dev/null
    sleep 0.1
done
wait
echo b
dd if=$L of=/dev/null bs=1M count=16 skip=$2 2>/dev/null
dd if=/dev/zero of=$L bs=1M count=8 seek=$(($2 + 32)) conv=fsync 2>/dev/null
echo d
read x
"""


class Frames:
    """`iolens top -b -j ARGS` in the background: its frames as they come,
    each with the monotonic time it came at."""

    def __init__(self, args):
        self.proc = subprocess.Popen([IOLENS, "top", "-b", "-j", "-d", "0.5"] + args,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.lines = []
        self.th = threading.Thread(target=lambda: self.lines.extend(
            (time.monotonic(), line) for line in iter(self.proc.stdout.readline, "")))
        self.th.start()

    def until(self, n, after=0.0, timeout=60):
        """Until n frames came after monotonic time `after`."""
        end = time.monotonic() + timeout
        while sum(t > after for t, _ in self.lines) < n:
            assert self.proc.poll() is None, self.proc.stderr.read()
            assert time.monotonic() < end, "top gave no frame for %d s" % timeout
            time.sleep(0.05)

    def stop(self):
        """Ctrl-C, which ends batch mode without a frame of its own: the
        frames, as (time, frame)."""
        self.proc.send_signal(signal.SIGINT)
        err = self.proc.stderr.read()
        self.proc.wait(timeout=30)
        self.th.join(30)
        assert self.proc.returncode == 0, err
        return [(t, json.loads(line)) for t, line in self.lines]

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def proc_io(pid):
    with open("/proc/%d/io" % pid) as f:
        return {k: int(v) for k, v in (line.split(": ") for line in f)}


# MAP_LOCKED, the same on x86-64 and arm64 (asm-generic/mman.h).
MAP_LOCKED = 0x2000


def pin_programs(names):
    """The files of programs `names` and of the libraries they load, read
    whole and locked in the page cache (mapped with MAP_LOCKED) until the
    maps are closed: no page fault of theirs reads a disk, so that what
    the workload's processes read is what they read from the loop device.
    (Run once before instead, fio still read 12 to 270 KiB of itself from
    the root disk: code paths the first run had not touched.)"""
    files = {"/etc/ld.so.cache"}
    for n in names:
        path = shutil.which(n)
        files.add(os.path.realpath(path))
        out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
        files |= {os.path.realpath(w) for w in out.split() if w.startswith("/")}
    maps = []
    try:
        for f in sorted(files):
            with open(f, "rb") as fh:
                maps.append(mmap.mmap(fh.fileno(), 0, prot=mmap.PROT_READ,
                                      flags=mmap.MAP_SHARED | mmap.MAP_POPULATE | MAP_LOCKED))
    except BaseException:
        for m in maps:
            m.close()
        raise
    return maps


def test_rows_add_up_to_the_device(iolens, plain_user):
    lo = Loop(size_mb=768)
    top = shell = None
    maps = pin_programs(["setpriv", "bash", "fio", "dd", "seq", "sleep"])
    try:
        os.chown(lo.dev, plain_user.uid, plain_user.gid)
        user = ["setpriv", "--reuid=%d" % plain_user.uid, "--regid=%d" % plain_user.gid,
                "--clear-groups", "--"]
        top = Frames(["--group", "user"])
        top.until(1)
        before = lo.diskstats()
        # Its stderr a pipe: written to pytest's capture file (on the root
        # disk), fio's warning dirtied a page there, which the kernel
        # rightly counts as fio's write_bytes.
        shell = subprocess.Popen(user + ["bash", "-c", WORKLOAD, "sh", lo.dev, "400"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        assert shell.stdout.readline() == "b\n"
        t_buffered = time.monotonic()
        assert shell.stdout.readline() == "d\n"
        # All of its children are reaped, their I/O done (direct, or
        # fsynced), in the kernel's sums of the shell.
        shell_after = proc_io(shell.pid)
        after = lo.diskstats()
        assert after["in_flight"] == 0
        # The frame under way, then one whose scan began after the shell's
        # children were done.
        top.until(2, after=time.monotonic())
        _, err = shell.communicate("\n", timeout=30)
        frames = top.stop()
    finally:
        for p in (shell, top):
            if p is not None:
                p.kill()
        lo.close()
        for m in maps:
            m.close()
    assert shell.returncode == 0, err

    # The shell's processes: itself and its descendants, as the rows say.
    parent = {}
    for _, f in frames:
        for r in f["processes"]:
            parent.setdefault(r["pid"], r["ppid"])
    tree = {shell.pid}
    while True:
        more = {p for p, pp in parent.items() if pp in tree} - tree
        if not more:
            break
        tree |= more
    ours = [(t, f, [r for r in f["processes"] if r["pid"] in tree]) for t, f in frames]
    dev = lo.name
    got = {"read_bytes": 0, "write_bytes": 0}
    own = collections.defaultdict(lambda: collections.Counter())
    comms = set()
    for t, f, rows in ours:
        for r in rows:
            comms.add(r["comm"])
            for k in got:
                got[k] += r[k]
            if any(parent.get(p) == r["pid"] for p in tree):
                for k in got:
                    own[r["pid"]][k] += r[k]
                    own[r["pid"]]["block_" + k] += r["block_" + k]
        # The user's group is these processes and nothing else.
        (g,) = [g for g in f["groups"] if g["uid"] == plain_user.uid] or [
            {"read_bytes": 0, "write_bytes": 0}]
        for k in got:
            assert g[k] == sum(r[k] for r in rows), (k, f["timestamp"])
        # Each frame: what the rows read and wrote is what the device did
        # in it, within 2%, for the direct I/O and the buffered reads (a
        # buffered write is charged when it dirties the page, and reaches
        # the device later).  At a frame's edge a request may be in a
        # process's row (counted as submitted) and in the device's next
        # frame (counted as done): one per process, 256 KiB at most.
        d = [x for x in f["devices"] if x["disk_device"] == dev]
        dev_r = d[0]["rkB/s"] * 1024 * f["seconds"] if d else 0
        dev_w = d[0]["wkB/s"] * 1024 * f["seconds"] if d else 0
        rows_r = sum(r["read_bytes"] for r in rows)
        rows_w = sum(r["write_bytes"] for r in rows)
        slack = 3 * 256 * 1024
        assert abs(rows_r - dev_r) <= max(0.02 * dev_r, slack), (rows_r, dev_r, f["timestamp"])
        if t < t_buffered:
            assert abs(rows_w - dev_w) <= max(0.02 * dev_w, slack), \
                (rows_w, dev_w, f["timestamp"])
    assert {"fio", "dd"} <= comms, comms
    # No parent is charged for its children: the shell and fio's main
    # process read and write only what they submit themselves, as the block
    # tracer sees them do it (a few pages of their own), never what their
    # reaped children did.
    assert len(own) == 2
    for pid, o in own.items():
        assert o["read_bytes"] == o["block_read_bytes"] < MiB, (pid, o)
        assert o["write_bytes"] == o["block_write_bytes"] == 0, (pid, o)
    # Over the run: exactly what the kernel summed in the shell once it had
    # reaped them all (it started after top's first scan, from zero), and
    # what the device counted.
    assert got == {k: shell_after[k] for k in got}, ("the shell's", shell_after)
    assert got == {"read_bytes": (after["r_sectors"] - before["r_sectors"]) * 512,
                   "write_bytes": (after["w_sectors"] - before["w_sectors"]) * 512}, \
        ("the device's", got, after["r_sectors"] - before["r_sectors"],
         after["w_sectors"] - before["w_sectors"])
