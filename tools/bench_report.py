#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""What `iolens report -f html` costs on a large trace: wall time, peak RSS
(GNU time's %M) and the page's size, for synthetic traces (written from the
format's description by tests/system/tracegen.py) of --requests requests,
sequential reads and a mix of random reads and writes from 8 processes.
Medians of --rounds.  Targets: 2 million requests in under 10 s, under
64 MB, a page under 5 MB.

usage: tools/bench_report.py [--requests N] [--rounds N] [--iolens PATH]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "system"))
from tracegen import synthetic_trace  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=2000000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iolens", default=os.path.join(HERE, "../build/iolens"))
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="iolens-bench-report-", dir="/dev/shm") as d:
        for name, mixed in (("sequential reads", False), ("random reads and writes, 8 pids", True)):
            trace, page = os.path.join(d, "t.iol"), os.path.join(d, "p.html")
            synthetic_trace(trace, args.requests, mixed=mixed)
            secs, kib = [], []
            for _ in range(args.rounds):
                t = time.monotonic()
                p = subprocess.run(["/usr/bin/time", "-f", "%M", args.iolens, "report", "-f",
                                    "html", "-o", page, trace], capture_output=True, text=True)
                secs.append(time.monotonic() - t)
                if p.returncode:
                    sys.exit("report failed: %s" % p.stderr)
                kib.append(int(p.stderr.splitlines()[-1]))
            rows.append((name, os.path.getsize(trace), statistics.median(secs),
                         statistics.median(kib), os.path.getsize(page)))
    print("%d requests a trace; medians of %d rounds; %s" % (args.requests, args.rounds,
                                                            os.uname().release))
    print("| trace | trace MB | seconds | peak RSS MB | page MB |")
    print("|---|---|---|---|---|")
    for name, tsize, s, k, psize in rows:
        print("| %s | %.1f | %.2f | %.1f | %.2f |" % (name, tsize / 1e6, s, k / 1024, psize / 1e6))


if __name__ == "__main__":
    main()
