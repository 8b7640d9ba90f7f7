#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The record-padding experiment: fixed-size records written with pwrite at
random record indexes to a file whose pages are not in the page cache,
4000-byte records against records padded to 4096 bytes, each run watched by
`iolens check`.  A 4000-byte record never covers a whole page, so the page
cache reads the page first (read-modify-write); a 4096-byte record at a
4096-byte boundary replaces it.

The file is made on the filesystem of --dir (the root disk by default: a
real device, where a read costs what it costs) and removed afterwards.
Run as root from the repository: tools/demo_rmw.py [--size-mb N] [--records N]
"""
import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
IOLENS = os.environ.get("IOLENS", os.path.join(HERE, "..", "build", "iolens"))

WRITER = r"""
import os, random, sys, time
path, rec, n, size, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rng = random.Random(seed)
buf = os.urandom(rec)
fd = os.open(path, os.O_WRONLY)
t = time.perf_counter()
for _ in range(n):
    os.pwrite(fd, buf, rng.randrange(size // rec) * rec)
os.fsync(fd)
print(time.perf_counter() - t)
"""


def uncache(path):
    fd = os.open(path, os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def disk_of(path):
    st = os.stat(path)
    with open("/sys/dev/block/%d:%d/uevent" % (os.major(st.st_dev), os.minor(st.st_dev))) as f:
        return dict(l.strip().split("=", 1) for l in f if "=" in l)["DEVNAME"]


def one_run(path, rec, n, size, disk):
    uncache(path)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, path, str(rec), str(n),
                               str(size), "1"], stdout=subprocess.PIPE, text=True,
                              stdin=subprocess.DEVNULL)
    # check follows the writer from before its first write: the writer
    # needs ~50 ms to start Python, check ~0.3 s to attach, so the writer
    # is started stopped.
    os.kill(writer.pid, signal.SIGSTOP)
    ck = subprocess.Popen([IOLENS, "check", "-j", "-d", disk, "-p", str(writer.pid)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ck.stderr.readline()
    os.kill(writer.pid, signal.SIGCONT)
    secs = float(writer.communicate()[0])
    ck.send_signal(signal.SIGINT)
    rep = json.loads(ck.communicate()[0])
    rmw = next(f for f in rep["findings"] if f["check"] == "page_cache_rmw")
    return secs, rmw


def bench_run(path, rec, size, secs):
    """The same pattern driven by iolens load under iolens bench."""
    uncache(path)
    p = subprocess.run([IOLENS, "bench", "-j", "--name=w", "--filename=" + path,
                        "--rw=randwrite", "--bs=%d" % rec, "--size=%d" % size,
                        "--direct=0", "--ioengine=psync", "--runtime=%d" % secs,
                        "--time_based"], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default="/var/tmp", help="where the file goes")
    ap.add_argument("--size-mb", type=int, default=1024, help="file size")
    ap.add_argument("--records", type=int, default=20000, help="writes per run")
    ap.add_argument("--seconds", type=int, default=5, help="length of each bench run")
    a = ap.parse_args()
    if os.geteuid():
        sys.exit("demo_rmw: run as root (iolens check needs it)")
    size = a.size_mb << 20
    fd, path = tempfile.mkstemp(prefix="iolens-demo-", dir=a.dir)
    try:
        # Written data, not a hole or an unwritten extent: those read back
        # as zeros without a device read.
        chunk = os.urandom(1 << 20)
        for _ in range(a.size_mb):
            os.write(fd, chunk)
        os.close(fd)
        disk = disk_of(path)
        print("file: %s, %d MiB on %s; %d pwrite()s of one record at random record"
              " indexes, then fsync" % (path, a.size_mb, disk, a.records))
        print()
        print("| record | writes | RMW reads | reads per write | seconds | writes/s |")
        print("|---:|---:|---:|---:|---:|---:|")
        for rec in (4000, 4096):
            secs, rmw = one_run(path, rec, a.records, size, disk)
            print("| %d | %d | %d | %.2f | %.2f | %.0f |" % (
                rec, rmw["total"], rmw["count"], rmw["count"] / max(rmw["total"], 1),
                secs, a.records / secs))
        print()
        print("iolens bench, %d s of iolens load --rw=randwrite --direct=0 --ioengine=psync"
              " over the same file, its pages dropped first:" % a.seconds)
        print()
        print("| record | writes | writes/s | RMW reads | reads per write | device MiB read |")
        print("|---:|---:|---:|---:|---:|---:|")
        for rec in (4000, 4096):
            r = bench_run(path, rec, size, a.seconds)
            w = r["write"]["app"]["ios"]
            print("| %d | %d | %.0f | %d | %.2f | %.1f |" % (
                rec, w, r["write"]["app"]["iops"], r["rmw"]["reads"],
                r["rmw"]["reads"] / max(w, 1), r["rmw"]["bytes"] / 2**20))
    finally:
        os.unlink(path)


if __name__ == "__main__":
    main()
