#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Cost of in-kernel aggregation: iolens stat (every metric on), iolens
lat (device-time histogram, biolatency's default; lat --by stack) and iolens serve (by
default, with --detail, and with --labels comm,cgroup; stat --by cgroup) against libbpf-tools
biolatency, under 4 KiB random reads at queue depth 32 (fio, io_uring,
O_DIRECT) on a loop device backed by tmpfs.  Last, serve's cost against
lat's and the untraced IOPS, beside its targets.

Untraced, iolens stat, iolens lat and biolatency runs alternate so that drift hits all
alike; for each tool:
  - in-kernel ns per I/O: sum of bpf_stats run_time_ns over the programs the
    tool loaded / requests completed on the device (/proc/diskstats);
  - the tool's own user+sys CPU per I/O;
  - requests per second and the IOPS ratio traced/untraced.
Medians over --rounds.

With --baseline PATH, that build's stat and lat run in the same rounds:
a change's cost measured beside what it replaces.

usage: tools/bench_stat.py [--rounds N] [--runtime SECS] [--iolens PATH] [--baseline PATH]
Needs root, fio, bpftool, biolatency; tools/install-deps.sh bench installs them.
"""
import os
import signal
import socket
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib import (alternate, bench_device, measure, medians,  # noqa: E402
                      parse_args, prog_stats, wait_new_progs, workload_line)

BIOLATENCY = "/usr/sbin/biolatency"


def one_run(cmd, dev, name, runtime):
    before = prog_stats()
    p = None
    if cmd:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        wait_new_progs(before)
    try:
        res = measure(p, dev, name, runtime, before)
    finally:
        if p:
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=60)
            if p.returncode not in (0, -signal.SIGINT):
                raise RuntimeError("%s failed: %s" % (cmd[0], err))
    return res


def main():
    args = parse_args(__doc__, "bench_stat", "BPF, loop devices", baseline=True)
    if not os.access(BIOLATENCY, os.X_OK):
        sys.exit("bench_stat: %s missing: tools/install-deps.sh bench" % BIOLATENCY)

    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        port = sk.getsockname()[1]
    with bench_device() as (dev, _):
        name = os.path.basename(dev)
        modes = {
            "untraced": None,
            "iolens stat": [args.iolens, "stat", "-y", "-j", "-d", name, "1"],
            "stat --by cgroup": [args.iolens, "stat", "-y", "-j", "--by", "cgroup", "-d", name,
                                 "1"],
            "iolens lat": [args.iolens, "lat", "-d", name],
            "lat --by stack": [args.iolens, "lat", "--by", "stack", "-d", name],
            "biolatency": [BIOLATENCY, "-d", name, "3600"],
            "iolens serve": [args.iolens, "serve", "--listen", "127.0.0.1:%d" % port,
                             "-d", name],
            "serve --detail": [args.iolens, "serve", "--listen", "127.0.0.1:%d" % port,
                               "-d", name, "--detail"],
            "serve --labels": [args.iolens, "serve", "--listen", "127.0.0.1:%d" % port,
                               "-d", name, "--labels", "comm,cgroup"],
        }
        if args.baseline:
            modes["baseline stat"] = [args.baseline] + modes["iolens stat"][1:]
            modes["baseline lat"] = [args.baseline] + modes["iolens lat"][1:]
        results = alternate(dev, modes, one_run, args.rounds, args.runtime)

    base = statistics.median(r["iops"] for r in results["untraced"])
    print(workload_line(args.rounds, args.runtime))
    print("| tool | requests/s | IOPS vs untraced | in-kernel ns/I/O | tool CPU ns/I/O |")
    print("|---|---|---|---|---|")
    print("| untraced | %.0f | 1.00 | - | - |" % base)
    med = {}
    for m in ("iolens stat", "stat --by cgroup", "iolens lat", "lat --by stack", "biolatency",
              "iolens serve",
              "serve --detail", "serve --labels", "baseline stat", "baseline lat"):
        if m not in results:
            continue
        med[m] = medians(results[m], base)
        print("| %s | %.0f | %.2f | %.0f | %.2f |" % ((m,) + med[m]))
    lat_ns = med["iolens lat"][2]
    print()
    print("serve: %.2f of lat's in-kernel ns/I/O (target at most 1.10), %.2f of the "
          "untraced IOPS (target at least 0.95); serve --labels: %.2f of lat's "
          "(target at most 2)" % (med["iolens serve"][2] / lat_ns, med["iolens serve"][1],
                                  med["serve --labels"][2] / lat_ns))


if __name__ == "__main__":
    main()
