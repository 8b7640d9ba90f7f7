#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Kernel memory and RSS of the aggregating commands on big machines: boots
a kernel of the matrix (tests/kernels/run_matrix.py) under qemu with 16 and
with 32 CPUs, attaches 64 loop devices with some I/O on each, and runs
`stat`, `lat -D -F`, `top -b` and `serve --labels comm,cgroup` one after
the other.  For each: the kernel memory of the maps it made (bytes_memlock
of the maps `bpftool map show` lists after it started and not before) and
its peak RSS (VmHWM) after a few intervals; then both extrapolated linearly
to 256 CPUs.  qemu's TCG runs the guest's CPUs on this machine's two, so
times mean nothing there; memory is exact.

First, on this machine: `stat` over 64 loop devices with I/O on each, and
its own CPU time per interval (user+sys over 20 intervals of 0.5 s).

usage: tools/bench_scale.py [--kernel RELEASE] [--cpus 16,32] [--online] [--iolens PATH]
  --online: that many CPUs online (slow under TCG, and TCG with several
  CPUs now and then crashes as BPF programs attach: see run_matrix.boot());
  by default one is online and N possible (qemu -smp 1,maxcpus=N: hotplug
  slots): the kernel sizes per-CPU maps for every possible CPU, which is
  what is measured.  Linux 6.1 counts hotplug slots as possible; 6.12 (the
  x86 topology rework of 6.9) did not here, so the default kernel is 6.1,
  and a guest that has fewer possible CPUs than asked stops the run.
Needs root, build/iolens, build/venv (make kmatrix makes it).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "kernels"))
import run_matrix  # noqa: E402

DISKS = 64
COMMANDS = [
    ("stat", "stat -y 1"),
    ("lat -D -F", "lat -D -F 1"),
    ("top -b", "top -b -d 1"),
    ("serve --labels comm,cgroup", "serve --labels comm,cgroup --listen 127.0.0.1:9633"),
]

# Runs in the guest: the loop devices, then each command alone.  Prints one
# "iolens-scale {json}" line a command.
GUEST = r"""
import json, os, subprocess, sys, time
iolens, disks = sys.argv[1], int(sys.argv[2])
cmds = json.loads(sys.argv[3])
subprocess.run(["modprobe", "loop", "max_loop=%d" % disks], check=False)
devs = []
for i in range(disks):
    path = "/dev/shm/scale%d" % i
    with open(path, "wb") as f:
        f.truncate(16 << 20)
    devs.append(subprocess.run(["losetup", "-f", "--show", path], check=True,
                               capture_output=True, text=True).stdout.strip())

def maps():
    out = subprocess.run(["bpftool", "map", "show", "-j"], capture_output=True, text=True,
                         timeout=300).stdout
    return {m["id"]: m.get("bytes_memlock", 0) for m in json.loads(out or "[]")}

def io():
    for d in devs:
        with open(d, "rb") as f:
            os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
            f.read(1 << 16)

def count(spec):
    n = 0
    for part in spec.split(","):
        a, _, b = part.partition("-")
        n += int(b or a) - int(a) + 1
    return n

ncpu = count(open("/sys/devices/system/cpu/possible").read().strip())
for name, args in cmds:
    before = maps()
    p = subprocess.Popen([iolens] + args.split(), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    time.sleep(8)
    for _ in range(3):
        io()
        time.sleep(1.5)
    mine = {k: v for k, v in maps().items() if k not in before}
    with open("/proc/%d/status" % p.pid) as f:
        hwm = int([l for l in f if l.startswith("VmHWM:")][0].split()[1])
    p.terminate()
    try:
        p.wait(timeout=60)
        stopped = "exited"
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        stopped = "killed: no exit 60 s after SIGTERM"
    print("iolens-scale " + json.dumps({"command": name, "possible": ncpu,
                                        "maps": len(mine), "memlock": sum(mine.values()),
                                        "rss_kib": hwm, "stopped": stopped}), flush=True)
"""


def host_stat_cpu(iolens, intervals=20):
    """ms of CPU stat takes an interval here with DISKS loop devices."""
    devs, files = [], []
    try:
        for i in range(DISKS):
            fd, path = tempfile.mkstemp(prefix="iolens-scale-", dir="/dev/shm")
            os.ftruncate(fd, 16 << 20)
            os.close(fd)
            files.append(path)
            devs.append(subprocess.run(["losetup", "-f", "--show", path], check=True,
                                       capture_output=True, text=True).stdout.strip())
        p = subprocess.Popen([iolens, "stat", "-y", "-j", "0.5"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
        try:
            for n in range(intervals + 2):
                for d in devs:
                    with open(d, "rb") as f:
                        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
                        f.read(4096)
                p.stdout.readline()
                if n == 1:
                    t0 = cpu_ticks(p.pid)
            t1 = cpu_ticks(p.pid)
        finally:
            p.kill()
            p.wait()
        return (t1 - t0) * 1000 / os.sysconf("SC_CLK_TCK") / intervals
    finally:
        for d in devs:
            subprocess.run(["losetup", "-d", d])
        for f in files:
            os.unlink(f)


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernel", default=run_matrix.KERNELS[0][0])
    ap.add_argument("--cpus", default="16,32")
    ap.add_argument("--online", action="store_true")
    ap.add_argument("--iolens", default=os.path.join(REPO, "build", "iolens"))
    args = ap.parse_args()
    build = os.path.join(REPO, "build")
    print("stat with %d loop devices here: %.2f ms of CPU an interval" % (
        DISKS, host_stat_cpu(os.path.abspath(args.iolens))), flush=True)
    vng = os.path.join(build, "venv", "bin", "vng")
    package = dict(run_matrix.KERNELS)[args.kernel]
    vmlinuz = run_matrix.fetch(args.kernel, package)
    guest = "/tmp/iolens-scale-guest.py"
    with open(guest, "w") as f:
        f.write(GUEST)
    res = {}
    for n in (int(x) for x in args.cpus.split(",")):
        lines = []
        script = ("cd %s && /usr/bin/python3 %s %s %d '%s'; echo iolens-matrix-exit=$?" % (
            REPO, guest, os.path.abspath(args.iolens), DISKS,
            json.dumps(COMMANDS).replace("'", "")))
        rc = run_matrix.boot(vng, vmlinuz, script, timeout=3600,
                             qemu_cpus=str(n) if args.online else "1,maxcpus=%d" % n,
                             memory="4G", lines=lines)
        if rc:
            sys.exit("guest with %d CPUs failed (%d)" % (n, rc))
        for line in lines:
            m = re.search(r"iolens-scale (\{.*\})", line)
            if m:
                r = json.loads(m.group(1))
                if r["possible"] != n:
                    sys.exit("the guest had %d CPUs possible, not %d" % (r["possible"], n))
                res.setdefault(r["command"], {})[n] = r
    a, b = (int(x) for x in args.cpus.split(",")[:2])
    print("\n%s; %d loop devices; kernel %s; CPUs %s (%s); extrapolated linearly to 256 CPUs"
          % (args.iolens, DISKS, args.kernel, args.cpus,
             "online" if args.online else "possible, one online"))
    print("| command | map MiB at %d | at %d | at 256 | RSS MiB at %d | at %d | at 256 |" % (a, b, a, b))
    print("|---|---|---|---|---|---|---|")
    for name, _ in COMMANDS:
        r = res.get(name, {})
        if a not in r or b not in r:
            print("| %s | - | - | - | - | - | - |" % name)
            continue

        # RSS does not grow with possible CPUs (nothing of it is per CPU
        # but a lookup buffer); where it fell from a to b that is noise in
        # the peak (libbpf parsing BTF), taken as flat rather than
        # extrapolated below what was measured.
        def at256(key):
            slope = (r[b][key] - r[a][key]) / (b - a)
            if key == "rss_kib":
                slope = max(slope, 0)
            return r[b][key] + slope * (256 - b)
        mib = 1 << 20
        print("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |" % (
            name, r[a]["memlock"] / mib, r[b]["memlock"] / mib, at256("memlock") / mib,
            r[a]["rss_kib"] / 1024, r[b]["rss_kib"] / 1024, at256("rss_kib") / 1024))
    if any(r[b]["rss_kib"] < r[a]["rss_kib"] for r in res.values() if a in r and b in r):
        print("\nRSS at 256: where it fell from %d to %d CPUs (noise), taken as flat." % (a, b))
    for name, r in res.items():
        for n, x in sorted(r.items()):
            if x.get("stopped", "exited") != "exited":
                print("%s on %d CPUs was %s." % (name, n, x["stopped"]))


if __name__ == "__main__":
    main()
