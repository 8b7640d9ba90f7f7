#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""What `iolens report` costs on a trace that names more than any picture
can hold (issue 46): by default 300,000 requests over 100,000 disks,
1,000,000 cgroups and 1,000,000 files, each named by its record (written
from the format's description by tests/system/tracegen.py).  For every
format, and --compare: wall time and peak RSS (GNU time's %M).  Target:
every one under 64 MiB; exits 1 if one is not.

usage: tools/bench_report_crowded.py [--requests N] [--disks N] [--cgroups N]
                                     [--files N] [--iolens PATH]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "system"))
from tracegen import crowded_trace  # noqa: E402

LIMIT_KIB = 64 << 10
RUNS = [["-f", "text"], ["-f", "text", "--files"], ["-f", "csv"], ["-f", "json"],
        ["-f", "json", "--files"], ["-f", "html"], ["-f", "perfetto"],
        ["-f", "svg", "--chart", "offset"], ["-f", "svg", "--chart", "submitters"],
        ["-f", "svg", "--chart", "cgroups"], ["-f", "svg", "--chart", "latency-heatmap"],
        ["--compare"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=300000)
    ap.add_argument("--disks", type=int, default=100000)
    ap.add_argument("--cgroups", type=int, default=1000000)
    ap.add_argument("--files", type=int, default=1000000)
    ap.add_argument("--iolens", default=os.path.join(HERE, "../build/iolens"))
    args = ap.parse_args()
    over = 0
    with tempfile.TemporaryDirectory(prefix="iolens-bench-crowded-", dir="/dev/shm") as d:
        trace = os.path.join(d, "t.iol")
        t = time.monotonic()
        crowded_trace(trace, args.requests, ndev=args.disks, ncg=args.cgroups,
                      nfiles=args.files)
        print("trace: %d requests, %d disks, %d cgroups, %d files: %.1f MB, written in %.1f s"
              % (args.requests, args.disks, args.cgroups, args.files,
                 os.path.getsize(trace) / 1e6, time.monotonic() - t))
        print("%-36s %8s %8s" % ("report", "seconds", "MiB"))
        for extra in RUNS:
            inputs = [trace, trace] if extra == ["--compare"] else [trace]
            t = time.monotonic()
            p = subprocess.run(["/usr/bin/time", "-f", "%M", args.iolens, "report"] + extra +
                               ["-o", os.path.join(d, "out")] + inputs,
                               capture_output=True, text=True)
            secs = time.monotonic() - t
            if p.returncode:
                print("%s: exit %d: %s" % (" ".join(extra), p.returncode, p.stderr), file=sys.stderr)
                return 1
            kib = int(p.stderr.strip().splitlines()[-1])
            over += kib > LIMIT_KIB
            print("%-36s %8.1f %8.1f%s" % (" ".join(extra), secs, kib / 1024,
                                          "  OVER" if kib > LIMIT_KIB else ""))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
