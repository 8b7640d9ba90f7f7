#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Cost of per-request tracing: iolens snoop and record under 4 KiB random
reads at queue depth 32 (fio, io_uring, O_DIRECT) on a loop device backed by
tmpfs, the fastest device these machines have.

For each tracer, alternating with untraced runs so drift hits all alike:
  - in-kernel ns per request: sum of bpf_stats run_time_ns over the tracer's
    programs / requests completed on the device (from /proc/diskstats);
  - the tracer's own user+sys CPU per request;
  - requests per second and the IOPS ratio traced/untraced;
  - lost records, as the tracer itself reports them.
Medians over --rounds.  The libbpf-tools peer for per-request tracing,
biosnoop, is tried too and reported as it fares (it needs kprobes or fentry).

usage: tools/bench_trace.py [--rounds N] [--runtime SECS] [--iolens PATH]
Needs root, fio, bpftool; tools/install-deps.sh bench installs them.
"""
import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = ("btf_io_start", "btf_insert", "btf_issue", "btf_requeue", "btf_merge",
         "btf_complete", "raw_io_start", "raw_insert", "raw_issue",
         "raw_requeue", "raw_merge", "raw_complete")
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
    """{prog id: (name, run_time_ns, run_cnt)} of loaded iolens programs."""
    out = {}
    for p in json.loads(sh(["bpftool", "prog", "show", "-j"])):
        if p.get("name") in PROGS:
            out[p["id"]] = (p["name"], p.get("run_time_ns", 0), p.get("run_cnt", 0))
    return out


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


def start_tracer(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    line = p.stderr.readline()
    if "Tracing" not in line and "Recording" not in line:
        p.kill()
        raise RuntimeError("%s: %s%s" % (" ".join(cmd), line, p.stderr.read()))
    return p


def stop_tracer(p):
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    m = re.search(r"(\d+) lost", err)
    if p.returncode != 0 or not m:
        raise RuntimeError("tracer failed (%d): %s" % (p.returncode, err))
    return int(m.group(1))


def one_run(cmd, dev, name, runtime):
    before_stats = prog_stats()
    p = start_tracer(cmd) if cmd else None
    r0 = diskstats_reads(name)
    cpu0 = cpu_seconds(p.pid) if p else 0
    iops = fio(dev, runtime)
    r1 = diskstats_reads(name)
    res = {"iops": iops, "requests": r1 - r0}
    if p:
        stats = prog_stats()
        res["cpu"] = cpu_seconds(p.pid) - cpu0
        ns = sum(v[1] for k, v in stats.items() if k not in before_stats)
        res["kernel_ns"] = ns
        res["lost"] = stop_tracer(p)
    return res


def try_biosnoop():
    exe = "/usr/sbin/biosnoop"
    if not os.path.exists(exe):
        return "not installed (Debian package libbpf-tools)"
    try:
        p = subprocess.run([exe], capture_output=True, text=True, timeout=5)
    except subprocess.TimeoutExpired:
        return "runs"
    err = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    return "fails here: " + err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--iolens", default=os.path.join(HERE, "../build/iolens"))
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench_trace: needs root (BPF, loop devices)")

    with open("/proc/sys/kernel/bpf_stats_enabled") as f:
        stats_was = f.read().strip()
    fd, backing = tempfile.mkstemp(prefix="iolens-bench-", dir="/dev/shm")
    os.ftruncate(fd, 1 << 30)
    os.close(fd)
    dev = None
    trace_file = backing + ".iol"
    try:
        with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
            f.write("1")
        dev = sh(["losetup", "-f", "--show", "--direct-io=on", backing]).strip()
        name = os.path.basename(dev)
        modes = {
            "untraced": None,
            "snoop": [args.iolens, "snoop", "-j", "-d", name],
            "record": [args.iolens, "record", "-o", trace_file, "-d", name],
        }
        results = {m: [] for m in modes}
        fio(dev, 1)  # warm up
        for rnd in range(args.rounds):
            for m, cmd in modes.items():
                results[m].append(one_run(cmd, dev, name, args.runtime))
                print("round %d %-8s %s" % (rnd + 1, m, results[m][-1]),
                      file=sys.stderr)
    finally:
        if dev:
            subprocess.run(["losetup", "-d", dev])
        for f in (backing, trace_file):
            if os.path.exists(f):
                os.unlink(f)
        with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
            f.write(stats_was)

    base = statistics.median(r["iops"] for r in results["untraced"])
    print("4 KiB random reads, io_uring, QD 32, loop device on tmpfs; "
          "%d rounds of %d s, medians; kernel %s" % (
              args.rounds, args.runtime, os.uname().release))
    print("| tracer | requests/s | IOPS vs untraced | in-kernel ns/request | tracer CPU us/request | lost records |")
    print("|---|---|---|---|---|---|")
    print("| untraced | %.0f | 1.00 | - | - | - |" % base)
    for m in ("snoop", "record"):
        rs = results[m]
        print("| iolens %s | %.0f | %.2f | %.0f | %.2f | %d |" % (
            m, statistics.median(r["iops"] for r in rs),
            statistics.median(r["iops"] for r in rs) / base,
            statistics.median(r["kernel_ns"] / r["requests"] for r in rs),
            statistics.median(r["cpu"] * 1e6 / r["requests"] for r in rs),
            sum(r["lost"] for r in rs)))
    print("| libbpf-tools biosnoop | %s |" % try_biosnoop())


if __name__ == "__main__":
    main()
