# SPDX-License-Identifier: GPL-2.0
"""What the overhead benchmarks share: the workload (fio 4 KiB random reads,
io_uring, QD32, O_DIRECT on a loop device over tmpfs), in-kernel cost from
bpf_stats, and a tool's own CPU time."""
import contextlib
import json
import os
import subprocess
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def sh(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def diskstats_reads(name):
    with open("/proc/diskstats") as f:
        for line in f:
            p = line.split()
            if p[2] == name:
                return int(p[3])
    raise KeyError(name)


def prog_stats():
    """{prog id: run_time_ns} of every loaded program."""
    return {p["id"]: p.get("run_time_ns", 0)
            for p in json.loads(sh(["bpftool", "prog", "show", "-j"]))}


def wait_new_progs(before, timeout=15):
    """Wait until programs not in `before` are loaded (a tool attached)."""
    end = time.time() + timeout
    while time.time() < end:
        if set(prog_stats()) - set(before):
            time.sleep(0.3)  # the rest of its programs attach
            return
        time.sleep(0.05)
    raise RuntimeError("no BPF program appeared")


def new_prog_ns(before):
    return sum(ns for i, ns in prog_stats().items() if i not in before)


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def fio(dev, runtime):
    out = sh(["fio", "--name=bench", "--filename=" + dev, "--rw=randread",
              "--bs=4k", "--direct=1", "--ioengine=io_uring", "--iodepth=32",
              "--runtime=%d" % runtime, "--time_based", "--randrepeat=0",
              "--norandommap", "--output-format=json"])
    return json.loads(out)["jobs"][0]["read"]["iops"]


@contextlib.contextmanager
def bench_device():
    """A 1 GiB loop device on tmpfs with bpf_stats on; both undone after."""
    with open("/proc/sys/kernel/bpf_stats_enabled") as f:
        stats_was = f.read().strip()
    fd, backing = tempfile.mkstemp(prefix="iolens-bench-", dir="/dev/shm")
    os.ftruncate(fd, 1 << 30)
    os.close(fd)
    dev = None
    try:
        with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
            f.write("1")
        dev = sh(["losetup", "-f", "--show", "--direct-io=on", backing]).strip()
        yield dev, backing
    finally:
        if dev:
            subprocess.run(["losetup", "-d", dev])
        os.unlink(backing)
        with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
            f.write(stats_was)
