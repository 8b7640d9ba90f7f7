# SPDX-License-Identifier: GPL-2.0
"""What the overhead benchmarks share: the workload (fio 4 KiB random reads,
io_uring, QD32, O_DIRECT on a loop device over tmpfs), in-kernel cost from
bpf_stats, and a tool's own CPU time."""
import argparse
import contextlib
import itertools
import json
import statistics
import os
import subprocess
import sys
import tempfile
import time

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


def cpu_seconds(pid, main_only=False):
    """Time the process's threads (or its main thread) ran, to the ns
    (schedstat): utime+stime counts whole clock ticks, too coarse for a
    tool reading maps once a second."""
    total = 0
    for tid in [str(pid)] if main_only else os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
            total += int(f.read().split()[0])
    return total / 1e9


def fio(dev, runtime):
    out = sh(["fio", "--name=bench", "--filename=" + dev, "--rw=randread",
              "--bs=4k", "--direct=1", "--ioengine=io_uring", "--iodepth=32",
              "--runtime=%d" % runtime, "--time_based", "--randrepeat=0",
              "--norandommap", "--output-format=json"])
    return json.loads(out)["jobs"][0]["read"]["iops"]


def p_below(x, y):
    """One-sided p-value that the values x come from lower than y's: the
    exact Wilcoxon-Mann-Whitney rank-sum test (every split of the pooled
    values counted; ties at their mean rank), as src/lib/ranktest.c does
    for report --compare.  Small p: x are lower; 1.0: nothing says so."""
    pool = sorted(x + y)
    rank = {}
    for v in set(pool):
        first = pool.index(v)
        rank[v] = first + (pool.count(v) + 1) / 2
    ranks = [rank[v] for v in x + y]
    mine = sum(rank[v] for v in x)
    splits = list(itertools.combinations(ranks, len(x)))
    return sum(1 for c in splits if sum(c) <= mine + 1e-9) / len(splits)


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


def alternate(dev, modes, one_run, rounds, runtime):
    """{mode: [result per round]}: every mode once per round, in order, so
    that drift hits all alike; one_run(cmd, dev, name, runtime)."""
    name = os.path.basename(dev)
    results = {m: [] for m in modes}
    fio(dev, 1)  # warm up
    for rnd in range(rounds):
        for m, cmd in modes.items():
            results[m].append(one_run(cmd, dev, name, runtime))
            print("round %d %-12s %s" % (rnd + 1, m, results[m][-1]),
                  file=sys.stderr)
    return results


def workload_line(rounds, runtime):
    return ("4 KiB random reads, io_uring, QD 32, loop device on tmpfs; "
            "%d rounds of %d s, medians; kernel %s" % (
                rounds, runtime, os.uname().release))


def medians(rs, base_iops):
    """(requests/s, IOPS ratio, in-kernel ns per I/O, tool CPU ns per I/O)
    of one tool's rounds, medians."""
    iops = statistics.median(r["iops"] for r in rs)
    return (iops, iops / base_iops,
            statistics.median(r["kernel_ns"] / r["requests"] for r in rs),
            statistics.median(r["cpu"] * 1e9 / r["requests"] for r in rs))


def parse_args(doc, name, why="BPF, loop devices", baseline=False, only=False, extra=None):
    """The options every benchmark takes (--baseline where it runs a
    second build, --only where it has rows to choose from), and the root
    check."""
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--iolens", default=os.path.join(here, "../build/iolens"))
    if baseline:
        ap.add_argument("--baseline", metavar="PATH",
                        help="another iolens build, run in the same rounds")
    if only:
        ap.add_argument("--only", metavar="TEXT", default="",
                        help="only the rows whose name holds TEXT")
    if extra:
        extra(ap)
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("%s: needs root (%s)" % (name, why))
    return args


def measure(p, dev, name, runtime, before):
    """One fio run on dev while tool process p (None: untraced) runs:
    IOPS, requests completed, and p's CPU seconds and in-kernel ns of the
    programs loaded since the bpf_stats snapshot `before`."""
    r0 = diskstats_reads(name)
    cpu0 = cpu_seconds(p.pid) if p else 0
    iops = fio(dev, runtime)
    r1 = diskstats_reads(name)
    res = {"iops": iops, "requests": r1 - r0}
    if p:
        res["cpu"] = cpu_seconds(p.pid) - cpu0
        res["kernel_ns"] = new_prog_ns(before)
    return res
